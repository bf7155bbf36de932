import { z } from 'zod';
import { Id } from './queues';
import { QueueRole } from './roles';
import { WorkspaceRole } from './users';

/** PUT /queues/{queue_id}/permissions/{user_id} body (spec: QueuePermission). */
export const QueuePermissionInput = z.strictObject({
  role: QueueRole.meta({ description: 'The explicit role on the queue: `read-only`, `read-write` or `admin`.', examples: ['read-write'] }),
});
export type QueuePermissionInput = z.infer<typeof QueuePermissionInput>;

/**
 * A workspace user as one queue's permissions show them: the effective `role` (null:
 * no access, the queue is hidden from them), where it comes from, and both parts.
 */
export const QueueMember = z.object({
  user_id: Id,
  name: z.string(),
  active: z.boolean(),
  workspace_role: WorkspaceRole,
  role: QueueRole.nullable(),
  role_source: z.enum(['explicit', 'inherited']).nullable(),
  explicit_role: QueueRole.nullable(),
  inherited_role: z.literal('admin').nullable(),
});
export type QueueMember = z.infer<typeof QueueMember>;

/** One grant, change (`from` and `to` roles) or revoke (`to: null`) of an explicit role. */
export const PermissionChange = z.object({
  user_id: Id,
  from: QueueRole.nullable(),
  to: QueueRole.nullable(),
  actor_id: Id,
  at: z.iso.datetime(),
});
export type PermissionChange = z.infer<typeof PermissionChange>;

/** GET /queues/{queue_id}/permissions: every member of the workspace and the history, oldest first. */
export const QueuePermissions = z.object({
  queue_id: Id,
  members: z.array(QueueMember),
  history: z.array(PermissionChange),
});
export type QueuePermissions = z.infer<typeof QueuePermissions>;

/** PUT and DELETE /queues/{queue_id}/permissions/{user_id}: the user's permission afterwards. */
export const QueuePermission = QueueMember.extend({ queue_id: Id });
export type QueuePermission = z.infer<typeof QueuePermission>;
