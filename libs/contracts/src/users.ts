import { z } from 'zod';
import { text } from './queues';

export const WorkspaceRole = z.enum(['admin', 'member']);

/** PATCH /users/{user_id} body. Unknown fields are rejected. */
export const UserChanges = z.strictObject({
  // text(): a NUL character cannot be stored by Postgres and was a 500.
  name: text(1, 100).meta({ description: 'The user\'s new name, 1 to 100 characters.', examples: ['Bob Stone'] }).optional(),
  role: WorkspaceRole.meta({ description: 'The new workspace role: `admin` (admin of every queue) or `member`.', examples: ['member'] }).optional(),
  active: z
    .boolean()
    .meta({ description: '`false` deactivates the user: their tokens stop working at once. `true` reactivates them.', examples: [false] })
    .optional(),
});
export type UserChanges = z.infer<typeof UserChanges>;

const userId = z.number().int().positive();

export const User = z.object({
  id: userId.meta({ description: 'The user id (what `assignee_id`, `author_id` and the permission paths name).' }),
  workspace_id: userId.meta({ description: 'The workspace the user belongs to; a user belongs to exactly one.' }),
  name: z.string().meta({ description: 'The user\'s name.' }),
  role: WorkspaceRole.meta({ description: 'The workspace role: `admin` (manages users and is admin of every queue) or `member`.' }),
  active: z.boolean().meta({ description: 'Whether the user may sign in: a deactivated user\'s tokens are refused.' }),
  email: z
    .string()
    .nullable()
    .meta({ description: 'The user\'s email, their sign-in name (unique, matched case-insensitively); `null` for a user made without one, who cannot sign in until given one with a setup link.', examples: ['ada@example.com'] }),
  created_at: z.iso.datetime().meta({ description: 'When the user was created (UTC).' }),
  updated_at: z.iso.datetime().meta({ description: 'When the user\'s name, role or activity last changed, or their creation (UTC).' }),
});
export type User = z.infer<typeof User>;

export const Me = User.extend({
  workspace: z
    .object({
      id: userId.meta({ description: 'The workspace id.' }),
      name: z.string().meta({ description: 'The workspace name.' }),
    })
    .meta({ description: 'The workspace the caller belongs to: everything the token reads and changes is in it.' }),
});
export type Me = z.infer<typeof Me>;
