import { randomUUID } from 'node:crypto';
import { IssueState, QueueRole, QueueState, WorkspaceRole } from '@tracker/contracts';
import type { Signer } from '@tracker/signing';
import { z } from 'zod';

/**
 * Integration events: past-tense facts, defined once and validated by both the
 * publisher (outbox) and the consumers (statistics, notifications). Each carries the aggregate's
 * new state and a `revision` that grows with every change of the aggregate, so a
 * consumer applies an event only when it is newer than what it holds.
 */
const id = z.number().int().positive();
const timestamp = z.iso.datetime({ offset: true });

// The queue's and the issue's state, as events and the statistics replica's snapshot carry them: libs/contracts snapshot.ts.
export { IssueState, QueueState } from '@tracker/contracts';

/**
 * One changed field of `issue.updated`, as the issue's history shows it: a text longer
 * than the history keeps (ISSUE_READ_LIMITS.historyText, 1,000 characters) is cut, and
 * `from_truncated` / `to_truncated` say so (absent in events written before they existed).
 * The event's issue state carries the whole new text.
 */
export const FieldChange = z.object({
  field: z.string(),
  from: z.unknown(),
  to: z.unknown(),
  from_truncated: z.boolean().optional(),
  to_truncated: z.boolean().optional(),
});

/**
 * A user as access events carry it. `email`, `created_at` and `updated_at` (what GET /users
 * answers beyond the rest) are optional: `user.updated` events written before they existed lack them.
 */
export const UserState = z.object({
  id,
  name: z.string(),
  role: WorkspaceRole,
  active: z.boolean(),
  email: z.string().nullable().optional(),
  created_at: timestamp.optional(),
  updated_at: timestamp.optional(),
});

export const eventData = {
  'queue.created': z.object({ queue: QueueState }),
  /** `previous`: the old value of each changed setting (name, description); absent in events written before it existed. */
  'queue.updated': z.object({ queue: QueueState, previous: z.object({ name: z.string().optional(), description: z.string().optional() }).optional() }),
  'issue.created': z.object({ issue: IssueState }),
  'issue.updated': z.object({ issue: IssueState, changes: z.array(FieldChange) }),
  'comment.added': z.object({ issue: IssueState, comment: z.object({ id, author_id: id, body: z.string().optional(), created_at: timestamp }) }),
  'worklog.added': z.object({
    issue: IssueState,
    worklog: z.object({ id, author_id: id, minutes: z.number().int().min(1).max(1440), description: z.string().optional(), created_at: timestamp }),
  }),
  /**
   * `role` is the new explicit role (null: revoked). `previous_role` (the explicit role
   * before) and `member` (the user as the permissions read shows them) are optional:
   * events written before they existed lack them.
   */
  'permission.changed': z.object({
    queue_id: id,
    user_id: id,
    role: QueueRole.nullable(),
    previous_role: QueueRole.nullable().optional(),
    member: z.object({ name: z.string(), active: z.boolean(), workspace_role: WorkspaceRole }).optional(),
  }),
  'user.created': z.object({ user: UserState }),
  /** `previous`: the old value of each changed field (name, role, active, email); absent in events written before it existed. */
  'user.updated': z.object({
    user: UserState,
    previous: z.object({ name: z.string().optional(), role: WorkspaceRole.optional(), active: z.boolean().optional(), email: z.string().nullable().optional() }).optional(),
  }),
} as const;

export type EventType = keyof typeof eventData;
export const EVENT_TYPES = Object.keys(eventData) as EventType[];

export const aggregateOf: Record<EventType, 'queue' | 'issue' | 'queue_permission' | 'user'> = {
  'queue.created': 'queue',
  'queue.updated': 'queue',
  'issue.created': 'issue',
  'issue.updated': 'issue',
  'comment.added': 'issue',
  'worklog.added': 'issue',
  'permission.changed': 'queue_permission',
  'user.created': 'user',
  'user.updated': 'user',
};

/**
 * The one component that publishes each event type: its relay signs the message with its
 * key, and a consumer accepts the event only under that component's trusted keys (see
 * signature.ts). A new event type does not compile until it has its source here.
 */
export const eventSourceOf: Record<EventType, Extract<Signer, 'issues' | 'access'>> = {
  'queue.created': 'issues',
  'queue.updated': 'issues',
  'issue.created': 'issues',
  'issue.updated': 'issues',
  'comment.added': 'issues',
  'worklog.added': 'issues',
  'permission.changed': 'access',
  'user.created': 'access',
  'user.updated': 'access',
};

const envelopeBase = z.object({
  event_id: z.uuid(),
  type: z.enum(EVENT_TYPES as [EventType, ...EventType[]]),
  occurred_at: timestamp,
  workspace_id: id,
  aggregate: z.object({ type: z.string(), id: z.string().min(1), revision: z.number().int().positive() }),
  actor_id: id.nullable(),
  request_id: z.string().nullable(),
  data: z.unknown(),
});

export type EventEnvelope<T extends EventType = EventType> = Omit<z.infer<typeof envelopeBase>, 'type' | 'data'> & {
  type: T;
  data: z.infer<(typeof eventData)[T]>;
};

/** Parses any envelope and its type-specific data; throws a ZodError on anything else. */
export function parseEvent(raw: unknown): EventEnvelope {
  const envelope = envelopeBase.parse(raw);
  const data = eventData[envelope.type].parse(envelope.data);
  if (envelope.aggregate.type !== aggregateOf[envelope.type]) {
    throw new z.ZodError([{ code: 'custom', path: ['aggregate', 'type'], message: `must be ${aggregateOf[envelope.type]}`, input: envelope.aggregate.type }]);
  }
  return { ...envelope, data } as EventEnvelope;
}

/** The routing key on the topic exchange: `tracker.<type>`, e.g. `tracker.issue.updated`. */
export const routingKeyOf = (type: EventType) => `tracker.${type}`;
export const EVENTS_EXCHANGE = 'tracker.events';

export interface NewEvent<T extends EventType> {
  type: T;
  workspaceId: number;
  aggregateId: number | string;
  revision: number;
  actorId: number | null;
  requestId?: string | null;
  data: z.input<(typeof eventData)[T]>;
  occurredAt?: Date;
}

/** Builds and validates an envelope, so a malformed event fails the writing transaction, not a consumer. */
export function buildEvent<T extends EventType>(event: NewEvent<T>): EventEnvelope<T> {
  const envelope = {
    event_id: randomUUID(),
    type: event.type,
    occurred_at: (event.occurredAt ?? new Date()).toISOString(),
    workspace_id: event.workspaceId,
    aggregate: { type: aggregateOf[event.type], id: String(event.aggregateId), revision: event.revision },
    actor_id: event.actorId,
    request_id: event.requestId ?? null,
    data: eventData[event.type].parse(event.data),
  };
  return parseEvent(envelope) as EventEnvelope<T>;
}
