import { ISSUE_READ_LIMITS, type QueueRole, type UserAcl } from '@tracker/contracts';
import { prepared, type Sql } from '@tracker/kit';
import type { PermissionsRepository } from '../domain/ports';
import type { PermissionChangeRecord, PermissionHistory, QueueMember } from '../domain/permissions.model';

// The queue_role enum stores the API's spelling ('read-only', ...): read as text, written with a cast.

/**
 * The history is read as an issue read reads its lists (services/issues, issue-reads.repository.ts):
 * along the (queue_id, id) index, only the rows shown, and a count that stops at
 * ISSUE_READ_LIMITS.counted, so neither the read nor a page grows with the changes a queue
 * admin makes. A change (alias c) as json; its `at` comes out as ISO text.
 */
const CHANGE_JSON = `json_build_object('id', c.id, 'userId', c.user_id, 'actorId', c.actor_id, 'fromRole', c.from_role, 'toRole', c.to_role, 'at', c.at)`;
/** The changes of queue $1 counted up to the cap `cap` (cheap: only that many index entries). */
const counted = (cap: string) => `(SELECT count(*)::int FROM (SELECT 1 FROM permission_changes WHERE queue_id = $1 LIMIT ${cap}) t)`;
/** The `rows` (json, oldest first) and `total` of `changes`, a subquery of changes (alias c) ending in ORDER BY and LIMIT. */
const listed = (changes: string, cap: string) => `
  SELECT (SELECT coalesce(json_agg(t.j ORDER BY t.id), '[]') FROM (SELECT c.id, ${CHANGE_JSON} AS j FROM permission_changes c ${changes}) t) AS rows,
         ${counted(cap)} AS total`;

/** $1 the queue, $2 how many of the newest, $3 the count cap. */
const NEWEST = listed('WHERE c.queue_id = $1 ORDER BY c.id DESC LIMIT $2', '$3');
/** $1 the queue, $2 after this id, $3 rows (one more than asked, to know whether more follow), $4 the count cap. */
const PAGE = listed('WHERE c.queue_id = $1 AND c.id > $2 ORDER BY c.id LIMIT $3', '$4');

type ListedRow = { rows: Array<Omit<PermissionChangeRecord, 'at'> & { at: string }>; total: number };
const listedOf = (row: ListedRow): PermissionHistory => ({ items: row.rows.map((r) => ({ ...r, at: new Date(r.at) })), total: row.total });

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

    async newestHistory(queueId) {
      const [row] = await prepared<ListedRow>(c, 'permissions.newest-history', NEWEST, [queueId, ISSUE_READ_LIMITS.embedded, ISSUE_READ_LIMITS.counted]);
      return listedOf(row!);
    },

    async historyPage(queueId, afterId, limit) {
      const [row] = await prepared<ListedRow>(c, 'permissions.history-page', PAGE, [queueId, afterId, limit + 1, ISSUE_READ_LIMITS.counted]);
      const { items, total } = listedOf(row!);
      const shown = items.slice(0, limit);
      return { items: shown, total, nextAfterId: items.length > limit ? shown[shown.length - 1]!.id : null };
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
