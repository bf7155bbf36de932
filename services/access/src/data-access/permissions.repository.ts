import type { QueueRole, UserAcl } from '@tracker/contracts';
import { prepared, type Sql } from '@tracker/kit';
import type { PermissionsRepository } from '../domain/deps';
import type { PermissionChangeRecord, QueueMember } from '../domain/permissions.model';

// The queue_role enum stores the API's spelling ('read-only', ...): read as text, written with a cast.

export function permissionsRepository(c: Sql): PermissionsRepository {
  return {
    async grant(queueId, userId) {
      const rows = await prepared<{ role: QueueRole | null; revision: number }>(
        c,
        'permissions.grant',
        `SELECT role::text AS role, revision FROM queue_permissions WHERE queue_id = $1 AND user_id = $2`,
        [queueId, userId],
      );
      return rows[0] ?? null;
    },

    async explicitRole(queueId, userId) {
      const rows = await prepared<{ role: QueueRole | null }>(
        c,
        'permissions.explicit-role',
        `SELECT role::text AS role FROM queue_permissions WHERE queue_id = $1 AND user_id = $2`,
        [queueId, userId],
      );
      return rows[0]?.role ?? null;
    },

    async saveGrant(queueId, userId, role) {
      const rows = await prepared<{ revision: number }>(
        c,
        'permissions.save-grant',
        `INSERT INTO queue_permissions (queue_id, user_id, role) VALUES ($1, $2, $3::queue_role)
         ON CONFLICT (queue_id, user_id)
         DO UPDATE SET role = EXCLUDED.role, revision = queue_permissions.revision + 1, updated_at = now()
         RETURNING revision`,
        [queueId, userId, role],
      );
      return rows[0]!.revision;
    },

    async recordChange(change) {
      await prepared(
        c,
        'permissions.record-change',
        `INSERT INTO permission_changes (queue_id, user_id, actor_id, from_role, to_role) VALUES ($1, $2, $3, $4::queue_role, $5::queue_role)`,
        [change.queueId, change.userId, change.actorId, change.fromRole, change.toRole],
      );
    },

    members(workspaceId, queueId) {
      return prepared<QueueMember>(
        c,
        'permissions.members',
        `SELECT u.id AS "userId", u.name, u.active, u.role::text AS "workspaceRole", p.role::text AS "explicitRole"
           FROM users u LEFT JOIN queue_permissions p ON p.user_id = u.id AND p.queue_id = $2
          WHERE u.workspace_id = $1 ORDER BY u.id`,
        [workspaceId, queueId],
      );
    },

    history(queueId) {
      return prepared<PermissionChangeRecord>(
        c,
        'permissions.history',
        `SELECT user_id AS "userId", actor_id AS "actorId", from_role::text AS "fromRole", to_role::text AS "toRole", at
           FROM permission_changes WHERE queue_id = $1 ORDER BY id`,
        [queueId],
      );
    },

    async acl(userId) {
      const rows = await prepared<UserAcl>(
        c,
        'permissions.acl',
        `SELECT u.id AS user_id, u.workspace_id,
                coalesce((SELECT json_agg(json_build_object('queue_id', p.queue_id, 'role', p.role) ORDER BY p.queue_id)
                            FROM queue_permissions p WHERE p.user_id = u.id AND p.role IS NOT NULL), '[]') AS grants
           FROM users u WHERE u.id = $1`,
        [userId],
      );
      return rows[0] ?? null;
    },
  };
}
