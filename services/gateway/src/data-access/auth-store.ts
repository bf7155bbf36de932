import type { Redis } from 'ioredis';
import { authCacheKey, CACHE_FRESH_KEY, cacheEntryReader, parseCachedToken, UNKNOWN_TOKEN, type Logger, type TrustedKeys, type UserPrincipal } from '@tracker/kit';
import { authFailureKey, rateLimitKey, WINDOW_SECONDS } from '../domain/rate-limit';

/**
 * What the cache says of a token: its principal; `unknown-token` when no token has this
 * hash (the access service records that, and it stays true); `ask-access` when nothing
 * trustworthy is known (not cached, Redis away, or the cache not fresh).
 */
export type CachedToken = UserPrincipal | 'unknown-token' | 'ask-access';

export interface CacheLookup {
  token: CachedToken;
  /** Requests of this token in the current window, or null when Redis did not answer. */
  requests: number | null;
  /** Failed authentications of this client in the current window (0 when Redis did not answer). */
  failures: number;
}

/**
 * One round trip to Redis per request: the cached principal, whether the cache may be
 * trusted (see CACHE_FRESH_KEY), the rate-limit counter and the client's failed
 * authentications. Any Redis failure degrades to "unknown", never to a decision.
 *
 * A cached principal (or unknown-token marker) counts only if the access service signed
 * it for this token hash's key and it has not expired (@tracker/kit cache-keys): checked
 * with the `access` keys of `trusted` alone. Anything else in Redis is a miss, so the
 * access service decides; `log` gets a warning (at most one per 10 s). Verified entries
 * are remembered by their exact text, so a hot token costs one signature check.
 */
export function authStore(redis: Redis, trusted: TrustedKeys, log?: Logger) {
  const entries = cacheEntryReader(trusted, { parse: parseCachedToken, log });
  const parseCached = (tokenHash: string, raw: string | null): CachedToken => {
    if (raw === null) return 'ask-access';
    const read = entries.read(authCacheKey(tokenHash), raw);
    if (!read.ok) return 'ask-access';
    return read.value.kind === UNKNOWN_TOKEN.kind ? 'unknown-token' : read.value;
  };
  return {
    async lookup(tokenHash: string, windowId: number, countRequest: boolean, client: string): Promise<CacheLookup> {
      const pipeline = redis.pipeline().get(authCacheKey(tokenHash)).exists(CACHE_FRESH_KEY).get(authFailureKey(client, windowId));
      if (countRequest) {
        const key = rateLimitKey(tokenHash, windowId);
        pipeline.incr(key).expire(key, WINDOW_SECONDS + 1, 'NX');
      }
      try {
        const results = (await pipeline.exec()) ?? [];
        const [cacheError, cached] = results[0] ?? [new Error('no reply')];
        const [freshError, freshFlag] = results[1] ?? [new Error('no reply')];
        const [failuresError, failures] = results[2] ?? [new Error('no reply')];
        const [countError, count] = results[3] ?? [null, null];
        const fresh = !cacheError && !freshError && freshFlag === 1;
        return {
          token: fresh ? parseCached(tokenHash, typeof cached === 'string' ? cached : null) : 'ask-access',
          requests: countError || count === null || count === undefined ? null : Number(count),
          failures: failuresError ? 0 : Number(failures ?? 0),
        };
      } catch {
        return { token: 'ask-access', requests: null, failures: 0 };
      }
    },

    /** Counts a failed authentication against the client; best effort. */
    async recordFailure(client: string, windowId: number): Promise<void> {
      const key = authFailureKey(client, windowId);
      await redis.pipeline().incr(key).expire(key, WINDOW_SECONDS + 1, 'NX').exec().catch(() => undefined);
    },
  };
}

export type AuthStore = ReturnType<typeof authStore>;
