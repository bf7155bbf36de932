import { z } from 'zod';
import { Comment, Issue, ISSUE_READ_LIMITS, Priority, Worklog } from './issues';
import { QueuePermission } from './permissions';
import { Id, Queue } from './queues';
import { QueueRole } from './roles';
import { User, WorkspaceRole } from './users';

/**
 * The public event log (the notifications service): one envelope for the feed (GET
 * /api/v1/events), and later the live stream and webhooks. `data` holds the changed object
 * as the API answers it, under its kind's name, the `actor_id`, and on the changes the old
 * values of what changed (`previous`).
 */
export const PUBLIC_EVENT_TYPES = [
  'issue.created',
  'issue.updated',
  'comment.added',
  'worklog.added',
  'queue.created',
  'queue.updated',
  'permission.changed',
  'user.created',
  'user.updated',
] as const;
export const PublicEventType = z.enum(PUBLIC_EVENT_TYPES);
export type PublicEventType = z.infer<typeof PublicEventType>;

/** Bounds of the event log and its feed (docs/decisions.md: Limits). */
export const EVENT_LIMITS = {
  /** The most a public event's JSON takes, in bytes (UTF-8): longer texts are cut and say so. */
  payloadBytes: 65_536,
  /** Events per feed page: at most, and by default. */
  pageMax: 500,
  pageDefault: 100,
  /** How long events are kept at least (EVENT_RETENTION_HOURS: 168 by default). */
  retentionDays: 7,
  /** The longest `types` list of a feed request, in characters. */
  typesText: 500,
} as const;

const kib = EVENT_LIMITS.payloadBytes / 1024;
const cut = (field: string) =>
  z
    .literal(true)
    .optional()
    .meta({ description: `Present (and true) only when \`${field}\` was cut to its first characters, to keep the event within ${kib} KiB: read the object through the API for all of it.` });

const actor = Id.nullable().meta({ description: 'Who made the change; null when the operator\'s command line made it (a workspace\'s first admin, a user it added).' });
const issueKey = z.string().meta({ description: 'The key of the issue it belongs to.' });

export const EventIssue = Issue.extend({ description_truncated: cut('description') }).meta({ description: 'The issue as GET /api/v1/issues/{key} answers it, without the embedded lists.' });
export const EventComment = Comment.extend({ issue_key: issueKey, body_truncated: cut('body') });
export const EventWorklog = Worklog.extend({ issue_key: issueKey, description_truncated: cut('description') });
/** A queue as the API answers it, without the caller's role: an event is the same for every reader. */
export const EventQueue = Queue.omit({ role: true, role_source: true }).extend({ description_truncated: cut('description') });
export const EventPermission = QueuePermission;
export const EventUser = User;

const was = (what: string) => `The value of \`${what}\` before the change`;

/** The old value of every field an issue update changed, in the API's field names (only those). */
export const IssuePrevious = z
  .object({
    title: z.string().optional().meta({ description: was('title') }),
    description: z.string().optional().meta({ description: `${was('description')}: its first ${ISSUE_READ_LIMITS.historyText.toLocaleString('en-US')} characters at most, as history keeps it.` }),
    description_truncated: cut('description'),
    status_id: Id.optional().meta({ description: was('status_id') }),
    position: z.number().optional().meta({ description: was('position') }),
    assignee_id: Id.nullable().optional().meta({ description: was('assignee_id') }),
    parent_id: Id.nullable().optional().meta({ description: was('parent_id') }),
    priority: Priority.optional().meta({ description: was('priority') }),
    type: z.string().optional().meta({ description: was('type') }),
    labels: z.array(z.string()).optional().meta({ description: was('labels') }),
    due_date: z.iso.date().nullable().optional().meta({ description: was('due_date') }),
    estimate_minutes: z.number().int().nonnegative().optional().meta({ description: was('estimate_minutes') }),
  })
  .meta({ description: 'The old value of every field the update changed, in the API\'s field names; fields it did not change are absent.' });

export const QueuePrevious = z
  .object({
    name: z.string().optional().meta({ description: was('name') }),
    description: z.string().optional().meta({ description: was('description') }),
    description_truncated: cut('description'),
  })
  .meta({ description: 'The old value of every setting the update changed; settings it did not change are absent.' });

export const PermissionPrevious = z
  .object({
    role: QueueRole.nullable().optional().meta({ description: was('role') }),
    role_source: z.enum(['explicit', 'inherited']).nullable().optional().meta({ description: was('role_source') }),
    explicit_role: QueueRole.nullable().optional().meta({ description: was('explicit_role') }),
  })
  .meta({ description: 'The old value of every field of the permission that changed (`explicit_role` always, `role` and `role_source` when they changed too).' });

export const UserPrevious = z
  .object({
    name: z.string().optional().meta({ description: was('name') }),
    role: WorkspaceRole.optional().meta({ description: was('role') }),
    active: z.boolean().optional().meta({ description: was('active') }),
    email: z.string().nullable().optional().meta({ description: was('email') }),
  })
  .meta({ description: 'The old value of every field the update changed; fields it did not change are absent.' });

const previousCut = z
  .literal(true)
  .optional()
  .meta({ description: `Present (and true) only when \`previous\` had to be left empty to keep the event within ${kib} KiB (read the issue's history instead).` });

const envelope = <T extends PublicEventType, D extends z.ZodRawShape>(type: T, data: D, what: string) =>
  z
    .object({
      id: z.uuid().meta({ description: 'The event id: stable and unique, the same wherever the event is delivered. Use it to drop an event seen twice.' }),
      type: z.literal(type).meta({ description: `\`${type}\`: ${what}.` }),
      timestamp: z.iso.datetime().meta({ description: 'When the change happened (UTC).' }),
      workspace_id: Id.meta({ description: 'The workspace the event belongs to (the caller\'s).' }),
      data: z.object({ ...data, actor_id: actor }).meta({ description: 'The changed object under its kind\'s name, as the API answers it, and who changed it.' }),
    })
    .meta({ description: `An event of type \`${type}\`: ${what}.` });

export const IssueCreatedEvent = envelope('issue.created', { issue: EventIssue.meta({ description: 'The new issue.' }) }, 'an issue was created');
export const IssueUpdatedEvent = envelope('issue.updated', { issue: EventIssue.meta({ description: 'The issue after the change.' }), previous: IssuePrevious.meta({ description: 'The old value of every field the update changed.' }), previous_truncated: previousCut }, 'fields of an issue changed, or it moved to another status (`issue.version` orders the updates of one issue)');
export const CommentAddedEvent = envelope('comment.added', { comment: EventComment.meta({ description: 'The new comment.' }) }, 'a comment was added to an issue');
export const WorklogAddedEvent = envelope('worklog.added', { worklog: EventWorklog.meta({ description: 'The new worklog.' }) }, 'work was recorded on an issue');
export const QueueCreatedEvent = envelope('queue.created', { queue: EventQueue.meta({ description: 'The new queue, with its statuses.' }) }, 'a queue was created');
export const QueueUpdatedEvent = envelope('queue.updated', { queue: EventQueue.meta({ description: 'The queue after the change.' }), previous: QueuePrevious.meta({ description: 'The old value of every setting the update changed.' }) }, 'the name or description of a queue changed');
export const PermissionChangedEvent = envelope('permission.changed', { permission: EventPermission.meta({ description: 'The user\'s permission on the queue after the change.' }), previous: PermissionPrevious.meta({ description: 'The old explicit role, and the old effective role when it changed too.' }) }, 'a user\'s explicit role on a queue was granted, changed or revoked');
export const UserCreatedEvent = envelope('user.created', { user: EventUser.meta({ description: 'The new user.' }) }, 'a user joined the workspace');
export const UserUpdatedEvent = envelope('user.updated', { user: EventUser.meta({ description: 'The user after the change.' }), previous: UserPrevious.meta({ description: 'The old value of every field the update changed.' }) }, 'the name, role, activity or email of a user changed');

/** Every public event, told apart by `type`. */
export const PublicEvent = z.discriminatedUnion('type', [
  IssueCreatedEvent,
  IssueUpdatedEvent,
  CommentAddedEvent,
  WorklogAddedEvent,
  QueueCreatedEvent,
  QueueUpdatedEvent,
  PermissionChangedEvent,
  UserCreatedEvent,
  UserUpdatedEvent,
]);
export type PublicEvent = z.infer<typeof PublicEvent>;

/** A feed cursor: opaque to clients (what `next_cursor` answered). */
export const CURSOR_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Query of GET /api/v1/events. The route checks more than this schema says (each
 * parameter given once, the cursor's content, every type or pattern of `types`); this is
 * what the document and the agent's tool publish.
 */
export const EventsQuery = z.strictObject({
  after: z
    .string()
    .regex(CURSOR_PATTERN, 'must be a cursor this API answered')
    .optional()
    .meta({ description: 'Where to go on from: the `next_cursor` of the previous page. Absent: from the oldest event kept.', examples: ['c1_MTI0'] }),
  types: z
    .string()
    .min(1)
    .max(EVENT_LIMITS.typesText)
    .optional()
    .meta({
      description: `Only events of these types: a comma-separated list of types (${PUBLIC_EVENT_TYPES.map((t) => `\`${t}\``).join(', ')}) and patterns ending in \`*\` (\`issue.*\`, or \`*\` for all). Absent: every type.`,
      examples: ['issue.*,comment.added'],
    }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(EVENT_LIMITS.pageMax)
    .default(EVENT_LIMITS.pageDefault)
    .meta({ description: `Events per page, 1 to ${EVENT_LIMITS.pageMax} (default ${EVENT_LIMITS.pageDefault}).`, examples: [EVENT_LIMITS.pageDefault] }),
});
export type EventsQuery = z.infer<typeof EventsQuery>;

/**
 * Query of GET /api/v1/events/stream: the feed's filter, and where to resume for a client
 * that cannot send `Last-Event-ID` (the header wins when both come).
 */
export const EventStreamQuery = z.strictObject({
  after: EventsQuery.shape.after.meta({
    description: 'Resume after this event: the `id` of the last event received (what `Last-Event-ID` carries, for clients that cannot set that header; the header wins when both are sent). Absent, with no `Last-Event-ID`: from now, the newest event of the workspace.',
    examples: ['c1_MTI0'],
  }),
  types: EventsQuery.shape.types,
});
export type EventStreamQuery = z.infer<typeof EventStreamQuery>;

/** GET /api/v1/events: a page of the feed and where the next one starts. */
export const EventPage = z.object({
  items: z.array(PublicEvent).max(EVENT_LIMITS.pageMax).meta({ description: 'The events the caller may read now, oldest first, at most `limit`.' }),
  next_cursor: z
    .string()
    .regex(CURSOR_PATTERN)
    .meta({ description: 'Send it as `after` to go on. It is answered on every page, the last one too: keep it to catch up later. A page with fewer items than `limit`, even none, does not mean the end; a page whose `next_cursor` is the `after` sent does.' }),
});
export type EventPage = z.infer<typeof EventPage>;

/** What a type pattern (`issue.*`, `*`) or type of a `types` list selects; an empty list for one that names none. */
export function typesSelectedBy(item: string): PublicEventType[] {
  if (item.endsWith('*')) {
    const prefix = item.slice(0, -1);
    return PUBLIC_EVENT_TYPES.filter((type) => type.startsWith(prefix));
  }
  return (PUBLIC_EVENT_TYPES as readonly string[]).includes(item) ? [item as PublicEventType] : [];
}
