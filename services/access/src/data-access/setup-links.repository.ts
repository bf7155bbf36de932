import { prepared, type Sql } from '@tracker/kit';
import type { SetupLinksRepository } from '../domain/ports';

export function setupLinksRepository(c: Sql): SetupLinksRepository {
  return {
    // The newest link only: issuing one deletes the user's earlier ones.
    async replace(userId, codeHash, expiresAt) {
      await prepared(c, 'setup-links.delete-of-user', `DELETE FROM setup_links WHERE user_id = $1`, [userId]);
      await prepared(c, 'setup-links.create', `INSERT INTO setup_links (user_id, code_hash, expires_at) VALUES ($1, $2, $3)`, [userId, codeHash, expiresAt]);
    },

    async take(codeHash) {
      const rows = await prepared<{ id: number; userId: number; expiresAt: Date; usedAt: Date | null }>(
        c,
        'setup-links.take',
        `SELECT id, user_id AS "userId", expires_at AS "expiresAt", used_at AS "usedAt" FROM setup_links WHERE code_hash = $1 FOR UPDATE`,
        [codeHash],
      );
      return rows[0] ?? null;
    },

    async prune(before) {
      const rows = await prepared(c, 'setup-links.prune', `DELETE FROM setup_links WHERE (used_at < $1 OR expires_at < $1) RETURNING id`, [before]);
      return rows.length;
    },

    async markUsed(linkId) {
      await prepared(c, 'setup-links.mark-used', `UPDATE setup_links SET used_at = now() WHERE id = $1`, [linkId]);
    },
  };
}
