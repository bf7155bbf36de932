import type { Redis } from 'ioredis';
import { UserAcl, type QueueRole } from '@tracker/contracts';
import { type Logger } from '@tracker/kit';
import { type TrustedKeys } from '@tracker/signing';
import { aclCacheKey } from './cache-protocol';
import { grantsOf, type AccessClient } from './access-client';
import { freshCacheReader } from './fresh-cache-reader';

export interface GrantsSource {
  /** Explicit grants by queue id; grants recorded for another workspace are not returned. */
  explicitGrants(userId: number, workspaceId: number, requestId: string | null): Promise<ReadonlyMap<number, QueueRole>>;
}

/** The user id an `aclCacheKey` names. */
const userOfKey = (redisKey: string) => Number(/^acl:user:(\d+)$/.exec(redisKey)?.[1] ?? NaN);

/**
 * Explicit grants: Redis first (written and invalidated only by the access service,
 * trusted only while its freshness key exists), the access service on a miss, when
 * the cache is not fresh, or while Redis is away.
 *
 * An entry counts only if the access service signed it for this user's key and it has
 * not expired (libs/authz cache-protocol.ts), checked with the `access` keys of `trusted`
 * alone: a grant list written into Redis by anyone else (unsigned, signed by another
 * part, copied from another user's key, expired, malformed) is a miss, logged (at most
 * one warning per 10 s), and the access service decides. Verified entries are
 * remembered by their exact text (one signature check per entry, not per request); the
 * text is read from Redis on every request, so a grant or revoke holds for the very
 * next one.
 */
export function aclReader(redis: Redis, access: AccessClient, log: Logger, trusted: TrustedKeys): GrantsSource {
  const entries = freshCacheReader<UserAcl>(trusted, {
    log,
    parse: (value, redisKey) => {
      const parsed = UserAcl.safeParse(value);
      return parsed.success && parsed.data.user_id === userOfKey(redisKey) ? parsed.data : null;
    },
  });

  async function cached(userId: number): Promise<UserAcl | null> {
    if (redis.status !== 'ready') return null;
    try {
      const key = aclCacheKey(userId);
      const [entry, fresh] = (await entries.queue(redis.pipeline(), key).exec()) ?? [];
      const acl = entries.read(key, entry, fresh);
      return acl && acl.user_id === userId ? acl : null;
    } catch (err) {
      log.debug({ err }, 'ACL cache read failed; asking the access service');
      return null;
    }
  }

  return {
    async explicitGrants(userId, workspaceId, requestId) {
      const acl = (await cached(userId)) ?? (await access.userAcl(userId, requestId));
      return grantsOf(acl, workspaceId);
    },
  };
}
