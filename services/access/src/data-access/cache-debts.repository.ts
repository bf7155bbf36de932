import { prepared, type Sql } from '@tracker/kit';
import type { CacheDebtsRepository } from '../domain/ports';

/**
 * Cache keys a committed change made stale, recorded in its transaction and deleted here
 * once Redis has deleted them (shared-cache.ts settles them).
 */
export function cacheDebtsRepository(c: Sql) {
  const repository = {
    async record(keys: string[]): Promise<void> {
      if (keys.length === 0) return;
      await prepared(c, 'cache-debts.record', `INSERT INTO auth_cache_debts (key) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING`, [keys]);
    },

    /** Up to `limit` recorded keys. */
    async some(limit: number): Promise<string[]> {
      const rows = await prepared<{ key: string }>(c, 'cache-debts.some', `SELECT key FROM auth_cache_debts LIMIT $1`, [limit]);
      return rows.map((r) => r.key);
    },

    async settle(keys: string[]): Promise<void> {
      await prepared(c, 'cache-debts.settle', `DELETE FROM auth_cache_debts WHERE key = ANY($1::text[])`, [keys]);
    },
  };
  return repository satisfies CacheDebtsRepository;
}
