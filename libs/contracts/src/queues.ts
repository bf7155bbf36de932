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
export type Category = z.infer<typeof Category>;

const queueName = text(1, 100).meta({ description: 'The queue name.', examples: ['Website'] });
const queueDescription = text(0, QUEUE_DESCRIPTION_MAX).meta({ description: 'What the queue is for.', examples: ['Bugs and requests for the public website'] });

/** POST /queues body (spec: Queue). */
export const QueueCreate = z.strictObject({
  key: z
    .string()
    .min(2)
    .max(12)
    .regex(QUEUE_KEY_PATTERN, 'must start with a letter and hold only letters, digits and _')
    .meta({ description: 'The queue key, prefix of its issue keys: stored upper-case, unique in the workspace.', examples: ['WEB'] }),
  name: queueName,
  description: queueDescription.default(''),
});
export type QueueCreate = z.infer<typeof QueueCreate>;

/** PATCH /queues/{queue_id} body (spec: QueueSettings). */
export const QueueSettings = z.strictObject({
  name: queueName.optional(),
  description: queueDescription.optional(),
});
export type QueueSettings = z.infer<typeof QueueSettings>;

export const Status = z.object({
  id: Id,
  queue_id: Id,
  name: z.string(),
  category: Category,
  /** 1-based order of the status within its queue. */
  position: z.number().int(),
});
export type Status = z.infer<typeof Status>;

/** A queue as every /queues answer returns it, with the caller's effective role. */
export const Queue = z.object({
  id: Id,
  workspace_id: Id,
  key: z.string(),
  name: z.string(),
  description: z.string(),
  statuses: z.array(Status),
  role: QueueRole,
  role_source: z.enum(['explicit', 'inherited']),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type Queue = z.infer<typeof Queue>;
