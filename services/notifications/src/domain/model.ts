import type { PublicEventType } from '@tracker/contracts';

export type { RequestContext } from '@tracker/authz';

/** Who may read an event now (through the API): a queue's readers, its admins, or every member of the workspace. */
export type Audience = 'queue_readers' | 'queue_admins' | 'workspace';

/** A public event as the log keeps it: its JSON text and what decides who reads it. */
export interface LoggedEvent {
  /** The public event id (the integration event's id). */
  id: string;
  workspaceId: number;
  type: PublicEventType;
  /** The queue whose rights decide; null for user events. */
  queueId: number | null;
  audience: Audience;
  occurredAt: Date;
  /** The public event's JSON, at most EVENT_LIMITS.payloadBytes. */
  payload: string;
}

/** The caller's view of the log: everything (a workspace admin), or the queues they read and those they administer. */
export type Readable = { all: true } | { all: false; readQueueIds: number[]; adminQueueIds: number[] };

/** A position in the feed: the `seq` of the last event passed (0n: before every event). */
export type Position = bigint;

/** A readable event of a page: where it sits in the log, its type and its public JSON. */
export interface FeedItem {
  position: Position;
  type: PublicEventType;
  payload: string;
}

export interface FeedPage {
  /** The readable events, oldest first. */
  items: FeedItem[];
  next: Position;
}
