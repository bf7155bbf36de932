import type { Redis } from 'ioredis';
import { UserAcl, type QueueRole } from '@tracker/contracts';
import { aclCacheKey, CACHE_FRESH_KEY, type Logger } from '@tracker/kit';
import { grantsOf, type AccessClient } from './access-client';

export interface GrantsSource {
  /** Explicit grants by queue id; grants recorded for another workspace are not returned. */
  explicitGrants(userId: number, workspaceId: number, requestId: string | null): Promise<ReadonlyMap<number, QueueRole>>;
}

/**
 * Explicit grants: Redis first (written and invalidated only by the access service,
 * trusted only while its freshness key exists), the access service on a miss, when
 * the cache is not fresh, or while Redis is away. Nothing is kept in this process,
 * so a grant or revoke holds for the very next request.
 */
export function aclReader(redis: Redis, access: AccessClient, log: Logger): GrantsSource {
  async function cached(userId: number): Promise<UserAcl | null> {
    if (redis.status !== 'ready') return null;
    try {
      const results = (await redis.pipeline().get(aclCacheKey(userId)).exists(CACHE_FRESH_KEY).exec()) ?? [];
      const [[getError, raw] = [], [freshError, fresh] = []] = results;
      if (getError || freshError || fresh !== 1 || typeof raw !== 'string') return null;
      const parsed = UserAcl.safeParse(JSON.parse(raw));
      if (parsed.success && parsed.data.user_id === userId) return parsed.data;
      log.warn({ userId }, 'ignoring a malformed ACL cache entry');
      return null;
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
