import { z } from 'zod';
import { text } from './queues';

export const WorkspaceRole = z.enum(['admin', 'member']);

/** PATCH /users/{user_id} body (spec: UserChanges). Unknown fields are rejected. */
export const UserChanges = z.strictObject({
  // text(): a NUL character cannot be stored by Postgres and was a 500.
  name: text(1, 100).meta({ description: 'The user\'s name.', examples: ['Ada Lovelace'] }).optional(),
  role: WorkspaceRole.meta({ description: 'Workspace role: `admin` (admin of every queue) or `member`.', examples: ['member'] }).optional(),
  active: z
    .boolean()
    .meta({ description: '`false` deactivates the user: their tokens stop working at once. `true` reactivates them.', examples: [false] })
    .optional(),
});
export type UserChanges = z.infer<typeof UserChanges>;

export const User = z.object({
  id: z.number().int().positive(),
  workspace_id: z.number().int().positive(),
  name: z.string(),
  role: WorkspaceRole,
  active: z.boolean(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type User = z.infer<typeof User>;

export const Me = User.extend({
  workspace: z.object({ id: z.number().int().positive(), name: z.string() }),
});
export type Me = z.infer<typeof Me>;
