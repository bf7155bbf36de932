import { prepared, type Sql } from '@tracker/kit';
import type { TokensRepository } from '../domain/deps';
import type { TokenOwner } from '../domain/model';

/** A token (alias t) with its owner (alias u), as the domain's TokenOwner. */
const OWNER = `SELECT t.id AS "tokenId", t.revoked_at IS NOT NULL AS revoked, u.id AS "userId", u.workspace_id AS "workspaceId",
                      u.role::text AS "workspaceRole", u.active
                 FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = $1`;

export function tokensRepository(c: Sql): TokensRepository {
  return {
    // Every cache miss of the gateway runs one of these two: prepared statements.
    async findOwner(hash) {
      const rows = await prepared<TokenOwner>(c, 'tokens.find-owner', OWNER, [hash]);
      return rows[0] ?? null;
    },

    async lockOwner(hash) {
      const rows = await prepared<TokenOwner>(c, 'tokens.lock-owner', `${OWNER} FOR SHARE OF t, u`, [hash]);
      return rows[0] ?? null;
    },

    async create(userId, token) {
      const rows = await prepared<{ id: number }>(
        c,
        'tokens.create',
        `INSERT INTO tokens (user_id, hash, hint) VALUES ($1, $2, $3) RETURNING id`,
        [userId, token.hash, token.hint],
      );
      return rows[0]!.id;
    },

    async find(tokenId) {
      const rows = await prepared<{ hash: string; revoked: boolean }>(
        c,
        'tokens.find',
        `SELECT hash, revoked_at IS NOT NULL AS revoked FROM tokens WHERE id = $1`,
        [tokenId],
      );
      return rows[0] ?? null;
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
