import { prepared, type Sql } from '@tracker/kit';
import type { UsersRepository } from '../domain/ports';
import type { SignInUser, User } from '../domain/model';

/** A user row (alias u) as the domain's User. */
const USER_COLUMNS = `u.id, u.workspace_id AS "workspaceId", u.name, u.role::text AS role, u.active, u.email, u.created_at AS "createdAt", u.updated_at AS "updatedAt"`;

/** A unique index refused the write (an email another user has). */
const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';

export function usersRepository(c: Sql): UsersRepository {
  return {
    listInWorkspace(workspaceId) {
      return prepared<User>(c, 'users.list-in-workspace', `SELECT ${USER_COLUMNS} FROM users u WHERE u.workspace_id = $1 ORDER BY u.id`, [workspaceId]);
    },

    async findInWorkspace(workspaceId, userId) {
      const rows = await prepared<User>(
        c,
        'users.find-in-workspace',
        `SELECT ${USER_COLUMNS} FROM users u WHERE u.id = $1 AND u.workspace_id = $2`,
        [userId, workspaceId],
      );
      return rows[0] ?? null;
    },

    async findWithWorkspace(userId) {
      const rows = await prepared<User & { workspaceName: string }>(
        c,
        'users.find-with-workspace',
        `SELECT ${USER_COLUMNS}, w.name AS "workspaceName" FROM users u JOIN workspaces w ON w.id = u.workspace_id WHERE u.id = $1`,
        [userId],
      );
      if (!rows[0]) return null;
      const { workspaceName, ...user } = rows[0];
      return { ...user, workspace: { id: user.workspaceId, name: workspaceName } };
    },

    async exists(userId) {
      const rows = await prepared(c, 'users.exists', `SELECT id FROM users WHERE id = $1`, [userId]);
      return rows.length > 0;
    },

    async create(user) {
      // ON CONFLICT: an email another user has makes no row (null), whoever committed it first.
      const rows = await prepared<User & { revision: number }>(
        c,
        'users.create',
        `INSERT INTO users AS u (workspace_id, name, role, email, email_key) VALUES ($1, $2, $3::workspace_role, $4, $5)
         ON CONFLICT (email_key) DO NOTHING RETURNING ${USER_COLUMNS}, u.revision`,
        [user.workspaceId, user.name, user.role, user.email ?? null, user.emailKey ?? null],
      );
      return rows[0] ?? null;
    },

    async findByEmailKey(emailKey) {
      const rows = await prepared<SignInUser>(c, 'users.find-by-email', `SELECT id, active, password_hash AS "passwordHash" FROM users WHERE email_key = $1`, [emailKey]);
      return rows[0] ?? null;
    },

    async setEmail(userId, email, emailKey) {
      try {
        const rows = await prepared<User & { revision: number }>(
          c,
          'users.set-email',
          `UPDATE users u SET email = $2, email_key = $3, revision = u.revision + 1, updated_at = now() WHERE u.id = $1 RETURNING ${USER_COLUMNS}, u.revision`,
          [userId, email, emailKey],
        );
        return rows[0] ?? null;
      } catch (err) {
        if (isUniqueViolation(err)) return null;
        throw err;
      }
    },

    async setPassword(userId, passwordHash) {
      await prepared(c, 'users.set-password', `UPDATE users SET password_hash = $2 WHERE id = $1`, [userId, passwordHash]);
    },

    async countActiveAdmins(workspaceId) {
      const rows = await prepared<{ count: number }>(
        c,
        'users.count-active-admins',
        `SELECT count(*)::int AS count FROM users WHERE workspace_id = $1 AND role = 'admin' AND active`,
        [workspaceId],
      );
      return rows[0]!.count;
    },

    async update(userId, changes) {
      // Unchanged fields keep their value (null parameters).
      const rows = await prepared<User & { revision: number }>(
        c,
        'users.update',
        `UPDATE users u SET name = coalesce($2, u.name), role = coalesce($3::workspace_role, u.role), active = coalesce($4, u.active),
                revision = u.revision + 1, updated_at = now()
          WHERE u.id = $1 RETURNING ${USER_COLUMNS}, u.revision`,
        [userId, changes.name ?? null, changes.role ?? null, changes.active ?? null],
      );
      return rows[0]!;
    },

    async lockForUpdate(userId) {
      await prepared(c, 'users.lock-for-update', `SELECT id FROM users WHERE id = $1 FOR UPDATE`, [userId]);
    },

    async lockForShare(userId) {
      await prepared(c, 'users.lock-for-share', `SELECT id FROM users WHERE id = $1 FOR SHARE`, [userId]);
    },

    lookup(workspaceId, userIds) {
      return prepared<{ id: number; active: boolean }>(
        c,
        'users.lookup',
        `SELECT id, active FROM users WHERE workspace_id = $1 AND id = ANY($2::int[]) ORDER BY id`,
        [workspaceId, userIds],
      );
    },
  };
}
