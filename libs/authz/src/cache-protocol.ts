import { type Logger, type UserPrincipal } from '@tracker/kit';
import { signPayload, verifiedPayload, type SigningKey, type TrustedKeys } from '@tracker/signing';

/**
 * Redis keys of the authorization caches. Only the access service writes them (under
 * row locks) and deletes them before it answers a change; the gateway (the token cache)
 * and the issues, statistics and notifications services (the grant cache) only read them.
 * (Those services do write Redis, but other keys: the ids of the tickets they accept,
 * seen-tickets.ts, and the gateway its request counters.)
 *
 * A reader trusts an entry only while `CACHE_FRESH_KEY` exists. The access service
 * re-sets it (TTL CACHE_FRESH_TTL_MS, 3 s) every second while it has no undeleted keys, and
 * stops when a delete fails; a change whose delete failed is answered only after
 * the key has expired. So after Redis comes back with old entries (a partition, a
 * persistent Redis), readers bypass the cache until access has deleted them.
 *
 * Redis is not trusted with who may do what: whoever can write to it must not become a
 * workspace admin. Every entry is therefore signed by the access service's own Ed25519
 * key (@tracker/signing; `signCacheEntry`) and binds, inside the signature, the Redis key it
 * is stored under and an expiry (the entry's TTL):
 *
 *   v1.<base64url {"use":"authz-cache","key":"auth:tok:<hash>","exp":<unix s>,"value":…}>.<signature>
 *
 * Readers (`cacheEntryReader`) accept an entry only if it verifies with one of the
 * `access` keys in INTERNAL_TRUSTED_KEYS, names the key it was read from, has not
 * expired and holds a value of the right shape. Anything else (plain JSON, an entry
 * signed by another part such as the issues service or the gateway, an entry copied
 * under another key, an expired or malformed one) is a cache miss: the reader asks the
 * access service, exactly as for an absent entry, and logs a warning (at most one per
 * 10 s with the count since). Someone who can write Redis can thus delete entries, set
 * the freshness key, and put a genuine entry they saved back under its own key until its
 * signed expiry (the TTL it was stored with: AUTH_CACHE_TTL_SECONDS of the access service,
 * 5 minutes by default, a token's principal no longer than the token lives, an unknown
 * token's marker 60 s): a revoke, demotion or grant
 * removal can be undone that long by someone who can both write Redis and use the token.
 * They can never make an entry up, nor grant more than the access service once said.
 *
 * A signature check costs ~60 µs, so each reader remembers the entries it has verified
 * (by their exact text, at most 10,000, never past their signed expiry): a hot token
 * costs one check, not one per request. The text still comes from Redis on every
 * request, so a deleted or replaced entry holds for the very next one.
 */
export const authCacheKey = (tokenHash: string) => `auth:tok:${tokenHash}`;

/** A user's explicit queue grants (see @tracker/contracts UserAcl). */
export const aclCacheKey = (userId: number) => `acl:user:${userId}`;

export const CACHE_FRESH_KEY = 'authz:fresh';
export const CACHE_FRESH_TTL_MS = 3000;

/**
 * Cached under `authCacheKey` when no token has that hash. It never goes stale: a new
 * token is a fresh random secret, so its hash is never one that was looked up before.
 */
export const UNKNOWN_TOKEN = { kind: 'unknown-token' } as const;
/** Unknown tokens are remembered briefly: enough to make a retrying client cheap, bounded in memory. */
export const UNKNOWN_TOKEN_TTL_SECONDS = 60;

/** What a signed cache entry says it is for, so no other signed text of the access service passes for one. */
export const CACHE_ENTRY_USE = 'authz-cache';
/** Verified entries a reader remembers. */
export const CACHE_ENTRY_MEMO_MAX = 10_000;
/** Longer entries (large grant lists) are verified each time, so the memo stays under ~80 MB. */
export const CACHE_ENTRY_MEMO_MAX_LENGTH = 8192;
/** Longest entry text a reader looks at (a principal is ~300 characters, a large grant list a few KB). */
const CACHE_ENTRY_MAX_LENGTH = 262_144;
const WARNING_INTERVAL_MS = 10_000;

/**
 * The text the access service stores under `redisKey`: `value` signed with its key,
 * bound to that Redis key and good for `ttlSeconds` (the TTL it is stored with).
 */
export function signCacheEntry(key: SigningKey, redisKey: string, value: unknown, ttlSeconds: number, now = Date.now()): string {
  return signPayload(key, { use: CACHE_ENTRY_USE, key: redisKey, exp: Math.floor(now / 1000) + ttlSeconds, value });
}

export type CacheEntryRead<T> = { ok: true; value: T } | { ok: false; problem: string };

export interface CacheEntryReaderOptions<T> {
  /** The value as the reader uses it, or null when it has the wrong shape for `redisKey`. */
  parse: (value: unknown, redisKey: string) => T | null;
  /** Where rejected entries are reported (rate-limited); none: silent. */
  log?: Logger;
  maxEntries?: number;
  now?: () => number;
}

export interface CacheEntryReader<T> {
  /** The value of `text` as read from Redis under `redisKey`, if the access service vouches for it there and now. */
  read(redisKey: string, text: string): CacheEntryRead<T>;
  /** Signature checks made so far (a remembered entry costs none). */
  readonly verifications: number;
  /** Entries remembered now. */
  readonly size: number;
}

interface Remembered<T> {
  key: string;
  /** Signed expiry, ms since the epoch. */
  expiresAt: number;
  value: T;
}

/**
 * Reads signed cache entries for one kind of value, trusting only the access service's
 * keys in `trusted`. Every rejection is a miss for the caller (ask the access service).
 */
export function cacheEntryReader<T>(trusted: TrustedKeys, options: CacheEntryReaderOptions<T>): CacheEntryReader<T> {
  const max = options.maxEntries ?? CACHE_ENTRY_MEMO_MAX;
  const now = options.now ?? Date.now;
  const memo = new Map<string, Remembered<T>>();
  let verifications = 0;
  let rejected = 0;
  let lastWarning = -Infinity;

  const reject = (redisKey: string, problem: string): CacheEntryRead<T> => {
    rejected++;
    const at = now();
    if (options.log && at - lastWarning >= WARNING_INTERVAL_MS) {
      // The key's kind and a few characters: enough to find it, not a whole token hash.
      options.log.warn(
        { key: redisKey.slice(0, 20), problem, rejectedSinceLastWarning: rejected },
        'ignoring an authorization cache entry the access service did not sign for this key; asking the access service',
      );
      lastWarning = at;
      rejected = 0;
    }
    return { ok: false, problem };
  };

  const verify = (text: string): Remembered<T> | string => {
    if (text.length > CACHE_ENTRY_MAX_LENGTH) return 'too long';
    verifications++;
    const payload = verifiedPayload(text, 'access', trusted, CACHE_ENTRY_MAX_LENGTH);
    if (!payload) return 'not signed by the access service';
    const { use, key, exp } = payload;
    if (use !== CACHE_ENTRY_USE || typeof key !== 'string' || !Number.isSafeInteger(exp)) return 'not a cache entry';
    const value = options.parse(payload.value, key);
    if (value === null) return 'malformed value';
    return { key, expiresAt: (exp as number) * 1000, value };
  };

  return {
    read(redisKey, text) {
      let entry = memo.get(text);
      if (entry) {
        // Most recently used last: the oldest unused entry goes first when full.
        memo.delete(text);
      } else {
        const verified = verify(text);
        if (typeof verified === 'string') return reject(redisKey, verified);
        entry = verified;
      }
      if (entry.expiresAt <= now()) return reject(redisKey, 'expired');
      if (text.length <= CACHE_ENTRY_MEMO_MAX_LENGTH) {
        memo.set(text, entry);
        if (memo.size > max) memo.delete(memo.keys().next().value!);
      }
      if (entry.key !== redisKey) return reject(redisKey, 'signed for another key');
      return { ok: true, value: entry.value };
    },
    get verifications() {
      return verifications;
    },
    get size() {
      return memo.size;
    },
  };
}

/** A cached `authCacheKey` value: the token's principal, or that no token has the hash. */
export function parseCachedToken(value: unknown): UserPrincipal | typeof UNKNOWN_TOKEN | null {
  const v = value as Record<string, unknown> | null;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  if (v.kind === UNKNOWN_TOKEN.kind) return Object.keys(v).length === 1 ? UNKNOWN_TOKEN : null;
  const isPrincipal =
    v.kind === 'user' &&
    Number.isSafeInteger(v.userId) &&
    Number.isSafeInteger(v.workspaceId) &&
    Number.isSafeInteger(v.tokenId) &&
    (v.workspaceRole === 'admin' || v.workspaceRole === 'member') &&
    Object.keys(v).length === 5;
  return isPrincipal ? { kind: 'user', userId: v.userId as number, workspaceId: v.workspaceId as number, workspaceRole: v.workspaceRole as UserPrincipal['workspaceRole'], tokenId: v.tokenId as number } : null;
}
