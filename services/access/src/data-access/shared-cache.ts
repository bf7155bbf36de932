import type { Redis } from 'ioredis';
import { type Logger } from '@tracker/kit';
import { type SigningKey } from '@tracker/signing';
import { CACHE_FRESH_KEY, CACHE_FRESH_TTL_MS, signCacheEntry } from '@tracker/authz';
import type { Pool } from 'pg';
import { cacheDebtsRepository } from './cache-debts.repository';

const DEBT_BATCH = 500;
const RETRY_DELETE_MS = 100;

/**
 * The Redis caches other services authorize from (token → principal, user → grants).
 * This service alone writes them, under row locks (resolve-token and get-user-acl use cases), and deletes
 * entries before it answers a change. Keys whose delete failed stay recorded as debts
 * in Postgres, and the freshness key (see libs/authz cache-protocol.ts) is not renewed until
 * they are deleted, so no reader trusts an entry that may be stale.
 *
 * Every entry is signed with this service's own key (`signingKey`, config.internal.key) and
 * bound to its Redis key and expiry (libs/authz cache-protocol.ts, `signCacheEntry`): readers
 * believe only the access service's signature, so writing to Redis grants nothing.
 */
export function sharedCache(redis: Redis, pool: Pool, ttlSeconds: number, log: Logger, signingKey: SigningKey) {
  if (signingKey.signer !== 'access') throw new Error(`authorization cache entries are signed with the access service's key, not ${signingKey.signer}'s`);
  const debts = cacheDebtsRepository(pool);
  const settleDebts = async (): Promise<number> => {
    if (redis.status !== 'ready') return 0;
    let settled = 0;
    for (;;) {
      const keys = await debts.some(DEBT_BATCH);
      if (keys.length === 0) return settled;
      await redis.del(...keys);
      await debts.settle(keys);
      settled += keys.length;
    }
  };

  return {
    /** Caching is only attempted when Redis is connected; otherwise lookups skip the row lock too. */
    isAvailable: () => redis.status === 'ready',

    /** Signs `value` for `redisKey` (good for `ttl` seconds) and stores it with that TTL. */
    async store(redisKey: string, value: unknown, ttl = ttlSeconds): Promise<void> {
      try {
        await redis.set(redisKey, signCacheEntry(signingKey, redisKey, value, ttl), 'EX', ttl);
      } catch (err) {
        // The message only: the error's command would carry the key (a token hash) and the entry.
        log.debug({ err: (err as Error).message }, 'cache write skipped');
      }
    },

    /**
     * Deletes entries made stale by a committed change (their debts were recorded in
     * its transaction). If Redis cannot be reached, waits until the freshness key has
     * expired, so that from this answer on every reader bypasses the cache.
     *
     * Another replica may have renewed the key later than this one did, so the wait is
     * a whole TTL from the first failure: a renewal that Redis took before it is over by
     * then, and a replica that still reaches Redis renews only after settling the debt
     * (keepFresh), which deletes the stale entries first.
     */
    async invalidate(keys: string[]): Promise<void> {
      if (keys.length === 0) return;
      let trustedUntil: number | undefined;
      for (;;) {
        try {
          await redis.del(...keys);
          await debts.settle(keys);
          return;
        } catch (err) {
          trustedUntil ??= Date.now() + CACHE_FRESH_TTL_MS;
          if (Date.now() >= trustedUntil) {
            log.warn({ err: (err as Error).message, count: keys.length }, 'cache delete failed; recorded for retry, readers bypass the cache');
            return;
          }
          await new Promise((resolve) => setTimeout(resolve, RETRY_DELETE_MS));
        }
      }
    },

    settleDebts,

    /** Settles debts, then renews the freshness key; run every second and on reconnect. */
    async keepFresh(): Promise<void> {
      if (redis.status !== 'ready') return;
      await settleDebts();
      if ((await debts.some(1)).length > 0) return;
      await redis.set(CACHE_FRESH_KEY, String(Date.now()), 'PX', CACHE_FRESH_TTL_MS);
    },
  };
}

export type SharedCache = ReturnType<typeof sharedCache>;
