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

/** A webhook as this service keeps it (its secret stays sealed in the store). */
export interface WebhookRecord {
  id: number;
  workspaceId: number;
  url: string;
  /** Types and patterns, as given. */
  events: string[];
  /** Only these queues' events; null: every event. */
  queueIds: number[] | null;
  description: string | null;
  active: boolean;
  disabledReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface AttemptRecord {
  attemptedAt: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

/** One event to one webhook, with its newest attempts (newest first). */
export interface DeliveryRecord {
  id: number;
  webhookId: number;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: Date | null;
  createdAt: Date;
  attempts: AttemptRecord[];
}

/** A delivery a worker has claimed for one attempt, with what it takes to send it. */
export interface ClaimedDelivery {
  id: number;
  webhookId: number;
  url: string;
  secretSealed: string;
  eventId: string;
  payload: string;
  /** Attempts made before this one. */
  attemptCount: number;
  /** A ping or a manual retry: this attempt is the only one. */
  once: boolean;
}

/** What one attempt came to (docs/decisions.md, webhooks): the delivery's next state, and whether the webhook is switched off. */
export interface AttemptOutcome {
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  /** Why the webhook is now inactive; null: it stays as it is. */
  disable: string | null;
}
