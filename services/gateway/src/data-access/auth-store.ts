import type { Redis } from 'ioredis';
import { authCacheKey, CACHE_FRESH_KEY, type UserPrincipal } from '@tracker/kit';
import { rateLimitKey, WINDOW_SECONDS } from '../domain/rate-limit';

export interface CacheLookup {
  /** undefined: nothing trustworthy is known (Redis away or the cache not fresh): ask the access service. */
  principal: UserPrincipal | null | undefined;
  /** Requests of this token in the current window, or null when Redis did not answer. */
  requests: number | null;
}

/**
 * One round trip to Redis per request: the cached principal, whether the cache may be
 * trusted (see CACHE_FRESH_KEY), and the rate-limit counter. Any Redis failure
 * degrades to "unknown", never to a decision.
 */
export function authStore(redis: Redis) {
  return {
    async lookup(tokenHash: string, windowId: number, countRequest: boolean): Promise<CacheLookup> {
      const pipeline = redis.pipeline().get(authCacheKey(tokenHash)).exists(CACHE_FRESH_KEY);
      if (countRequest) {
        const key = rateLimitKey(tokenHash, windowId);
        pipeline.incr(key).expire(key, WINDOW_SECONDS + 1, 'NX');
      }
      try {
        const results = (await pipeline.exec()) ?? [];
        const [cacheError, cached] = results[0] ?? [new Error('no reply')];
        const [freshError, fresh] = results[1] ?? [new Error('no reply')];
        const [countError, count] = results[2] ?? [null, null];
        const trusted = !cacheError && !freshError && fresh === 1;
        return {
          principal: trusted ? parsePrincipal(cached as string | null) : undefined,
          requests: countError || count === null || count === undefined ? null : Number(count),
        };
      } catch {
        return { principal: undefined, requests: null };
      }
    },
  };
}

function parsePrincipal(raw: string | null): UserPrincipal | null | undefined {
  if (raw === null) return null;
  try {
    const value = JSON.parse(raw);
    return value?.kind === 'user' ? (value as UserPrincipal) : undefined;
  } catch {
    return undefined;
  }
}

export type AuthStore = ReturnType<typeof authStore>;
