/**
 * Redis keys of the authorization caches. Only the access service writes them (under
 * row locks) and deletes them before it answers a change; the gateway and the issues
 * service only read them.
 *
 * A reader trusts an entry only while `CACHE_FRESH_KEY` exists. The access service
 * re-sets it (with a short TTL) every second while it has no undeleted keys, and
 * stops when a delete fails; a change whose delete failed is answered only after
 * the key has expired. So after Redis comes back with old entries (a partition, a
 * persistent Redis), readers bypass the cache until access has deleted them.
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
