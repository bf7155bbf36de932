import { prepared, type Sql } from '@tracker/kit';
import type { TokensRepository } from '../domain/ports';
import type { PersonalTokenRecord, TokenOwner } from '../domain/model';

/** A token (alias t) with its owner (alias u) and, for a session token, its session (alias s), as the domain's TokenOwner. */
const OWNER = `SELECT t.id AS "tokenId", t.revoked_at IS NOT NULL AS revoked, t.expires_at AS "expiresAt", u.id AS "userId", u.workspace_id AS "workspaceId",
                      u.role::text AS "workspaceRole", u.active,
                      CASE WHEN s.id IS NULL THEN NULL
                           ELSE json_build_object('lastSeenAt', s.last_seen_at, 'expiresAt', s.expires_at, 'endedAt', s.ended_at) END AS session
                 FROM tokens t JOIN users u ON u.id = t.user_id LEFT JOIN sessions s ON s.id = t.session_id WHERE t.hash = $1`;

/** A personal token (alias t) as listed. */
const PERSONAL = `t.id, t.name, t.hint, t.created_at AS "createdAt", t.expires_at AS "expiresAt", t.last_used_at AS "lastUsedAt"`;

/** json_build_object gives the session's times as text: back to Dates. */
function ownerOf(row: (Omit<TokenOwner, 'session'> & { session: Record<string, string | null> | null }) | undefined): TokenOwner | null {
  if (!row) return null;
  const { session } = row;
  const date = (text: string | null | undefined) => (text ? new Date(text) : null);
  return { ...row, session: session ? { lastSeenAt: date(session.lastSeenAt)!, expiresAt: date(session.expiresAt)!, endedAt: date(session.endedAt) } : null };
}

export function tokensRepository(c: Sql): TokensRepository {
  return {
    // Every cache miss of the gateway runs one of these two: prepared statements.
    async findOwner(hash) {
      return ownerOf((await prepared<any>(c, 'tokens.find-owner', OWNER, [hash]))[0]);
    },

    async lockOwner(hash) {
      return ownerOf((await prepared<any>(c, 'tokens.lock-owner', `${OWNER} FOR SHARE OF t, u`, [hash]))[0]);
    },

    async create(userId, token, options = {}) {
      const rows = await prepared<{ id: number }>(
        c,
        'tokens.create',
        `INSERT INTO tokens (user_id, hash, hint, name, expires_at, session_id) VALUES ($1, $2, $3, coalesce($4, 'created by operator'), $5, $6) RETURNING id`,
        [userId, token.hash, token.hint, options.name ?? null, options.expiresAt ?? null, options.sessionId ?? null],
      );
      return rows[0]!.id;
    },

    async find(tokenId) {
      const rows = await prepared<{ hash: string; revoked: boolean; userId: number; sessionId: number | null }>(
        c,
        'tokens.find',
        `SELECT hash, revoked_at IS NOT NULL AS revoked, user_id AS "userId", session_id AS "sessionId" FROM tokens WHERE id = $1`,
        [tokenId],
      );
      return rows[0] ?? null;
    },

    async sessionOf(tokenId) {
      const rows = await prepared<{ sessionId: number | null }>(c, 'tokens.session-of', `SELECT session_id AS "sessionId" FROM tokens WHERE id = $1`, [tokenId]);
      return rows[0]?.sessionId ?? null;
    },

    listPersonal(userId) {
      return prepared<PersonalTokenRecord>(
        c,
        'tokens.list-personal',
        `SELECT ${PERSONAL} FROM tokens t WHERE t.user_id = $1 AND t.session_id IS NULL AND t.revoked_at IS NULL ORDER BY t.id DESC`,
        [userId],
      );
    },

    async findPersonal(tokenId, userId) {
      const rows = await prepared<PersonalTokenRecord>(c, 'tokens.find-personal', `SELECT ${PERSONAL} FROM tokens t WHERE t.id = $1 AND t.user_id = $2 AND t.session_id IS NULL`, [tokenId, userId]);
      return rows[0] ?? null;
    },

    // One statement for a gateway's whole batch; a use seen later by another replica never moves the time back.
    async recordUses(uses) {
      await prepared(
        c,
        'tokens.record-uses',
        `UPDATE tokens t SET last_used_at = GREATEST(t.last_used_at, u.at)
           FROM (SELECT * FROM unnest($1::int[], $2::timestamptz[]) AS x(id, at)) u WHERE t.id = u.id`,
        [uses.map((use) => use.tokenId), uses.map((use) => use.at)],
      );
    },

    async markRevoked(tokenId) {
      await prepared(c, 'tokens.mark-revoked', `UPDATE tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL`, [tokenId]);
    },

    async hashesOfUser(userId) {
      const rows = await prepared<{ hash: string }>(c, 'tokens.hashes-of-user', `SELECT hash FROM tokens WHERE user_id = $1`, [userId]);
      return rows.map((r) => r.hash);
    },
  };
}
