import type { Redis } from 'ioredis';
import { authCacheKey, type Logger, type UserPrincipal } from '@tracker/kit';
import type { Db } from './prisma';

const DEBT_BATCH = 500;

/**
 * The gateway's token → principal cache in Redis. Only this service writes it
 * (under row locks, see tokens.repository) and deletes entries before it answers
 * a change. Deletes that fail while Redis is unreachable stay as debts in
 * Postgres and are retried until they succeed.
 */
export function authCache(redis: Redis, db: Db, ttlSeconds: number, log: Logger) {
  return {
    /** Caching is only attempted when Redis is connected; otherwise lookups skip the row lock too. */
    isAvailable: () => redis.status === 'ready',

    async store(tokenHash: string, principal: UserPrincipal): Promise<void> {
      try {
        await redis.set(authCacheKey(tokenHash), JSON.stringify(principal), 'EX', ttlSeconds);
      } catch (err) {
        log.debug({ err }, 'auth cache write skipped');
      }
    },

    async invalidate(tokenHashes: string[]): Promise<void> {
      if (tokenHashes.length === 0) return;
      try {
        await redis.del(...tokenHashes.map(authCacheKey));
        await db.authCacheDebt.deleteMany({ where: { key: { in: tokenHashes } } });
      } catch (err) {
        log.warn({ err, count: tokenHashes.length }, 'auth cache delete failed; it stays recorded and is retried');
      }
    },

    /** Retries recorded deletes; returns how many were settled. */
    async settleDebts(): Promise<number> {
      if (redis.status !== 'ready') return 0;
      const debts = await db.authCacheDebt.findMany({ take: DEBT_BATCH, select: { key: true } });
      if (debts.length === 0) return 0;
      const keys = debts.map((d) => d.key);
      await redis.del(...keys.map(authCacheKey));
      await db.authCacheDebt.deleteMany({ where: { key: { in: keys } } });
      return keys.length;
    },
  };
}

export type AuthCache = ReturnType<typeof authCache>;
