import type { Redis } from 'ioredis';
import { authCacheKey, CACHE_FRESH_KEY, freshCacheReader, parseCachedToken, UNKNOWN_TOKEN } from '@tracker/authz';
import { type Logger } from '@tracker/kit';
import { type TrustedKeys } from '@tracker/signing';
import type { AuthStore } from '../domain/ports';
import { authFailureKey, rateLimitKey, WINDOW_SECONDS } from '../domain/rate-limit';

/**
 * The lookup as one Redis command (a script: Redis runs it whole, in one round trip):
 * the cached principal, whether the cache may be trusted (CACHE_FRESH_KEY), the
 * client's failed authentications, and when ARGV[1] is '1' the request counted (the
 * counter expiring with its window) if the cache holds an entry for the token: a made-up
 * token leaves no counter behind (the use case counts a token the access service
 * resolved with countRequest). A missing key is `false` in the script, so the
 * reply keeps its four places. One command instead of a pipeline of five costs the
 * gateway about a third of the client-side CPU (ioredis builds and parses each command).
 */
const LOOKUP_SCRIPT = `
local entry = redis.call('GET', KEYS[1])
local fresh = redis.call('EXISTS', KEYS[2])
local failures = redis.call('GET', KEYS[3])
local count = false
if ARGV[1] == '1' and entry then
  count = redis.call('INCR', KEYS[4])
  redis.call('EXPIRE', KEYS[4], ARGV[2], 'NX')
end
return {entry, fresh, failures, count}`;

type LookupReply = [entry: string | null, fresh: number, failures: string | null, count: number | null];
type ScriptedRedis = Redis & { authLookup(entry: string, fresh: string, failures: string, counter: string, count: '0' | '1', ttl: number): Promise<LookupReply> };

/**
 * One round trip to Redis per request (LOOKUP_SCRIPT). Any Redis failure degrades to
 * "unknown", never to a decision.
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
  redis.defineCommand('authLookup', { numberOfKeys: 4, lua: LOOKUP_SCRIPT });
  const scripted = redis as ScriptedRedis;
  return {
    async lookup(tokenHash, windowId, countRequest, client) {
      const key = authCacheKey(tokenHash);
      try {
        const [entry, fresh, failures, count] = await scripted.authLookup(
          key,
          CACHE_FRESH_KEY,
          authFailureKey(client, windowId),
          rateLimitKey(tokenHash, windowId),
          countRequest ? '1' : '0',
          WINDOW_SECONDS + 1,
        );
        const cached = tokens.read(key, [null, entry], [null, fresh]);
        return {
          token: cached === null ? 'ask-access' : cached.kind === UNKNOWN_TOKEN.kind ? 'unknown-token' : cached,
          requests: countRequest && count !== null ? Number(count) : null,
          failures: Number(failures ?? 0),
        };
      } catch {
        return { token: 'ask-access', requests: null, failures: 0 };
      }
    },

    async countRequest(tokenHash, windowId) {
      const key = rateLimitKey(tokenHash, windowId);
      const replies = await redis.pipeline().incr(key).expire(key, WINDOW_SECONDS + 1, 'NX').exec().catch(() => null);
      const [error, count] = replies?.[0] ?? [null, null];
      return !error && typeof count === 'number' ? count : null;
    },

    async recordFailure(client, windowId) {
      const key = authFailureKey(client, windowId);
      await redis.pipeline().incr(key).expire(key, WINDOW_SECONDS + 1, 'NX').exec().catch(() => undefined);
    },
  };
}
