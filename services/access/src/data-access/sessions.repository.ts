import { prepared, type Sql } from '@tracker/kit';
import type { SessionsRepository } from '../domain/ports';
import type { SessionWithUser } from '../domain/model';

/** A session (alias s) with its user (alias u), as the domain's SessionWithUser. */
const WITH_USER = `SELECT s.id, s.user_id AS "userId", s.last_seen_at AS "lastSeenAt", s.expires_at AS "expiresAt", s.ended_at AS "endedAt",
                          u.workspace_id AS "workspaceId", u.active, u.password_hash AS "passwordHash"
                     FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.id_hash = $1`;

/**
 * Ending sessions also revokes the tokens made for them (POST /auth/token), in one
 * statement; the hashes it answers are the cache keys to delete.
 */
const END = (which: string) => `WITH ended AS (UPDATE sessions SET ended_at = now() WHERE ${which} AND ended_at IS NULL RETURNING id)
  UPDATE tokens SET revoked_at = now() WHERE session_id IN (SELECT id FROM ended) AND revoked_at IS NULL RETURNING hash`;

export function sessionsRepository(c: Sql): SessionsRepository {
  return {
    async create(userId, idHash, expiresAt) {
      const rows = await prepared<{ id: number }>(c, 'sessions.create', `INSERT INTO sessions (user_id, id_hash, expires_at) VALUES ($1, $2, $3) RETURNING id`, [userId, idHash, expiresAt]);
      return rows[0]!.id;
    },

    async find(idHash) {
      const rows = await prepared<SessionWithUser>(c, 'sessions.find', WITH_USER, [idHash]);
      return rows[0] ?? null;
    },

    async touch(sessionId) {
      await prepared(c, 'sessions.touch', `UPDATE sessions SET last_seen_at = now() WHERE id = $1`, [sessionId]);
    },

    async end(sessionId) {
      const rows = await prepared<{ hash: string }>(c, 'sessions.end', END('id = $1'), [sessionId]);
      return rows.map((r) => r.hash);
    },

    // Session tokens first: a session is deleted only once no token refers to it (the
    // foreign key would otherwise turn its tokens into personal ones).
    async prune(before) {
      const tokens = await prepared(c, 'sessions.prune-tokens', `DELETE FROM tokens WHERE session_id IS NOT NULL AND expires_at < $1 RETURNING id`, [before]);
      const sessions = await prepared(
        c,
        'sessions.prune',
        `DELETE FROM sessions s WHERE (s.ended_at < $1 OR s.expires_at < $1 OR s.last_seen_at < $2)
            AND NOT EXISTS (SELECT 1 FROM tokens t WHERE t.session_id = s.id) RETURNING id`,
        [before, new Date(before.getTime() - 12 * 3_600_000)],
      );
      return { tokens: tokens.length, sessions: sessions.length };
    },

    async endAllOfUser(userId, exceptSessionId) {
      const rows = await prepared<{ hash: string }>(c, 'sessions.end-all-of-user', END('user_id = $1 AND id IS DISTINCT FROM $2::int'), [userId, exceptSessionId]);
      return rows.map((r) => r.hash);
    },
  };
}
