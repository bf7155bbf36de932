import { z } from 'zod';
import { QueueRole } from './roles';

/** Ids in bodies and answers: integers > 0 that fit the database's int4. */
export const Id = z.number().int().min(1).max(2_147_483_647);

/**
 * A string of `min` to `max` UTF-16 units without NUL characters, which Postgres
 * text cannot store (they would be a 500 instead of a 422).
 */
export const text = (min: number, max: number) =>
  z.string().min(min).max(max).refine((value) => !value.includes('\u0000'), 'must not contain NUL characters');

/** Queue keys: 2 to 12 letters, digits and `_`, starting with a letter; stored upper-case. */
export const QUEUE_KEY_PATTERN = /^[A-Za-z][A-Za-z0-9_]{1,11}$/;
export const QUEUE_DESCRIPTION_MAX = 10_000;

export const Category = z.enum(['open', 'progress', 'done']);

/** The statuses every new queue starts with, in order (docs/decisions.md, Statuses and categories). */
export const STANDARD_STATUSES: ReadonlyArray<{ name: string; category: z.infer<typeof Category>; position: number }> = [
  { name: 'Open', category: 'open', position: 1 },
  { name: 'In progress', category: 'progress', position: 2 },
  { name: 'In review', category: 'progress', position: 3 },
  { name: 'Done', category: 'done', position: 4 },
  { name: 'Cancelled', category: 'done', position: 5 },
];
/** What a status category means, for the descriptions of every field that carries one. */
export const CATEGORY_MEANING = '`open` (not started), `progress` (being worked on) or `done` (finished or cancelled)';
export type Category = z.infer<typeof Category>;

const queueName = text(1, 100).meta({ description: 'The queue name, 1 to 100 characters.', examples: ['Website'] });
const queueDescription = text(0, QUEUE_DESCRIPTION_MAX).meta({
  description: `What the queue is for, at most ${QUEUE_DESCRIPTION_MAX.toLocaleString('en-US')} characters.`,
  examples: ['Bugs and requests for the public website'],
});

/** POST /queues body. */
export const QueueCreate = z.strictObject({
  key: z
    .string()
    .min(2)
    .max(12)
    .regex(QUEUE_KEY_PATTERN, 'must start with a letter and hold only letters, digits and _')
    .meta({
      description: 'The queue key, prefix of its issue keys: 2 to 12 letters, digits and `_`, starting with a letter; stored upper-case, unique in the workspace (case-insensitively).',
      examples: ['OPS'],
    }),
  name: queueName,
  description: queueDescription.default(''),
});
export type QueueCreate = z.infer<typeof QueueCreate>;

/** PATCH /queues/{queue_id} body. */
export const QueueSettings = z.strictObject({
  name: queueName.optional(),
  description: queueDescription.optional(),
});
export type QueueSettings = z.infer<typeof QueueSettings>;

export const Status = z.object({
  id: Id.meta({ description: 'The status id (what `status_id` and the `status_ids` filter name).' }),
  queue_id: Id.meta({ description: 'The queue the status belongs to; every queue has statuses of its own.' }),
  name: z.string().meta({ description: 'The status name, such as `In progress`.' }),
  category: Category.meta({ description: `What the status means: ${CATEGORY_MEANING}.` }),
  position: z.number().int().meta({ description: '1-based place of the status in its queue\'s workflow.' }),
});
export type Status = z.infer<typeof Status>;

/** A queue as every /queues answer returns it, with the caller's effective role. */
export const Queue = z.object({
  id: Id.meta({ description: 'The queue id.' }),
  workspace_id: Id.meta({ description: 'The workspace the queue belongs to (the caller\'s).' }),
  key: z.string().meta({ description: 'The queue key, upper-case: the prefix of its issue keys.' }),
  name: z.string().meta({ description: 'The queue name.' }),
  description: z.string().meta({ description: 'What the queue is for; may be empty.' }),
  statuses: z.array(Status).meta({ description: 'The queue\'s statuses in workflow order (by `position`).' }),
  role: QueueRole.meta({ description: 'The caller\'s effective role on the queue: `read-only`, `read-write` or `admin`.' }),
  role_source: z.enum(['explicit', 'inherited']).meta({ description: 'Where the role comes from: `explicit` (granted on this queue) or `inherited` (the caller is a workspace admin, admin of every queue).' }),
  created_at: z.iso.datetime().meta({ description: 'When the queue was created (UTC).' }),
  updated_at: z.iso.datetime().meta({ description: 'When the queue\'s name or description last changed, or its creation (UTC).' }),
});
export type Queue = z.infer<typeof Queue>;
