import type { Redis } from 'ioredis';
import { freshCacheReader } from '@tracker/authz';
import { type Logger, type TrustedKeys } from '@tracker/kit';
import { authCacheKey, parseCachedToken, UNKNOWN_TOKEN } from '@tracker/authz';
import type { AuthStore } from '../domain/deps';
import { authFailureKey, rateLimitKey, WINDOW_SECONDS } from '../domain/rate-limit';

/**
 * One round trip to Redis per request: the cached principal, whether the cache may be
 * trusted (see CACHE_FRESH_KEY), the client's failed authentications and the rate-limit
 * counter. Any Redis failure degrades to "unknown", never to a decision.
 *
 * A cached principal (or unknown-token marker) counts only if the access service signed
 * it for this token hash's key and it has not expired (libs/authz cache-protocol.ts), read as
 * every authorization cache is read (@tracker/authz freshCacheReader) with the `access`
 * keys of `trusted` alone. Anything else in Redis is a miss, so the access service
 * decides; `log` gets a warning (at most one per 10 s). Verified entries are remembered
 * by their exact text, so a hot token costs one signature check.
 */
export function authStore(redis: Redis, trusted: TrustedKeys, log?: Logger): AuthStore {
  const tokens = freshCacheReader(trusted, { parse: parseCachedToken, log });
  return {
    async lookup(tokenHash, windowId, countRequest, client) {
      const key = authCacheKey(tokenHash);
      const pipeline = tokens.queue(redis.pipeline(), key).get(authFailureKey(client, windowId));
      if (countRequest) {
        const counter = rateLimitKey(tokenHash, windowId);
        pipeline.incr(counter).expire(counter, WINDOW_SECONDS + 1, 'NX');
      }
      try {
        const [entry, fresh, failures = [new Error('no reply'), null], count = [null, null]] = (await pipeline.exec()) ?? [];
        const cached = tokens.read(key, entry, fresh);
        const [failuresError, failed] = failures;
        const [countError, counted] = count;
        return {
          token: cached === null ? 'ask-access' : cached.kind === UNKNOWN_TOKEN.kind ? 'unknown-token' : cached,
          requests: countError || counted === null || counted === undefined ? null : Number(counted),
          failures: failuresError ? 0 : Number(failed ?? 0),
        };
      } catch {
        return { token: 'ask-access', requests: null, failures: 0 };
      }
    },

    async recordFailure(client, windowId) {
      const key = authFailureKey(client, windowId);
      await redis.pipeline().incr(key).expire(key, WINDOW_SECONDS + 1, 'NX').exec().catch(() => undefined);
    },
  };
}
