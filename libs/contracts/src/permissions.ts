import { z } from 'zod';
import { embeddedList, listPage, listTotal } from './issues';
import { Id } from './queues';
import { QueueRole } from './roles';
import { WorkspaceRole } from './users';

/** PUT /queues/{queue_id}/permissions/{user_id} body. */
export const QueuePermissionInput = z.strictObject({
  role: QueueRole.meta({ description: 'The explicit role on the queue: `read-only`, `read-write` or `admin`.', examples: ['read-write'] }),
});
export type QueuePermissionInput = z.infer<typeof QueuePermissionInput>;

const roleSource = z.enum(['explicit', 'inherited']);

const memberFields = {
  user_id: Id.meta({ description: 'The user.' }),
  name: z.string().meta({ description: 'The user\'s name.' }),
  active: z.boolean().meta({ description: 'Whether the user is active (a deactivated user keeps their grants but cannot sign in).' }),
  workspace_role: WorkspaceRole.meta({ description: 'The user\'s workspace role; a workspace `admin` inherits `admin` on every queue.' }),
  role: QueueRole.nullable().meta({ description: 'The effective role on the queue: the higher of `explicit_role` and `inherited_role`; null: no access (the queue is hidden from the user).' }),
  role_source: roleSource.nullable().meta({ description: 'Where the effective role comes from: `explicit` (granted here) or `inherited` (workspace admin); null when there is no access.' }),
  explicit_role: QueueRole.nullable().meta({ description: 'The role granted on this queue by PUT …/permissions/{user_id}; null: none.' }),
  inherited_role: z.literal('admin').nullable().meta({ description: '`admin` for a workspace admin, else null.' }),
};

/**
 * A workspace user as one queue's permissions show them: the effective `role` (null:
 * no access, the queue is hidden from them), where it comes from, and both parts.
 */
export const QueueMember = z.object(memberFields);
export type QueueMember = z.infer<typeof QueueMember>;

/** One grant, change (`from` and `to` roles) or revoke (`to: null`) of an explicit role. */
export const PermissionChange = z.object({
  user_id: Id.meta({ description: 'The user whose explicit role changed.' }),
  from: QueueRole.nullable().meta({ description: 'The explicit role before; null: none (a grant).' }),
  to: QueueRole.nullable().meta({ description: 'The explicit role after; null: none (a revoke).' }),
  actor_id: Id.meta({ description: 'Who made the change.' }),
  at: z.iso.datetime().meta({ description: 'When (UTC).' }),
});
export type PermissionChange = z.infer<typeof PermissionChange>;

/**
 * GET /queues/{queue_id}/permissions: every member of the workspace, and the newest
 * ISSUE_READ_LIMITS.embedded changes (oldest first) with how many there are, as an issue
 * read embeds its history: a queue admin can make changes without end, the read stays bounded.
 */
export const QueuePermissions = z.object({
  queue_id: Id.meta({ description: 'The queue.' }),
  members: z.array(QueueMember).meta({ description: 'Every user of the workspace, deactivated ones included, by id, with their roles on the queue.' }),
  history: embeddedList(PermissionChange, 'changes of an explicit role on the queue', 'permissions/history'),
  history_total: listTotal('changes of an explicit role on the queue'),
});
export type QueuePermissions = z.infer<typeof QueuePermissions>;

/** GET /queues/{queue_id}/permissions/history: a keyset page (ListPage) of the changes, oldest first. */
export const PermissionChangePage = listPage(PermissionChange, 'Changes of an explicit role on the queue');
export type PermissionChangePage = z.infer<typeof PermissionChangePage>;

/** PUT and DELETE /queues/{queue_id}/permissions/{user_id}: the user's permission afterwards. */
export const QueuePermission = QueueMember.extend({ queue_id: Id.meta({ description: 'The queue.' }) });
export type QueuePermission = z.infer<typeof QueuePermission>;
