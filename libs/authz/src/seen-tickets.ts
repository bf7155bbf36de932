import type { Redis } from 'ioredis';
import { CLOCK_SKEW_SECONDS, inProcessSeenTickets, type Logger, type SeenTickets } from '@tracker/kit';

/**
 * Accepted tickets remembered in Redis, so a ticket accepted by one replica of a service
 * is refused by every other. SET NX, one round trip, kept a clock skew past the accepting
 * replica's deadline (`expiresAt`, itself the ticket's exp plus the skew by that replica's
 * clock): a replica whose clock runs the skew behind still accepts the ticket until then.
 * While Redis is away each replica still refuses what it has seen itself (logged), so an
 * outage costs replay protection across replicas, never a request.
 */
export function redisSeenTickets(redis: Redis, log: Logger): SeenTickets {
  const local = inProcessSeenTickets();
  let lastWarning = 0;
  return {
    async firstSight(audience, id, expiresAt) {
      if (local.has(audience, id)) return false;
      local.remember(audience, id, expiresAt);
      const ttlMs = Math.max(1, rememberedUntil(expiresAt) - Date.now());
      try {
        if (redis.status !== 'ready') throw new Error(`redis ${redis.status}`);
        return (await redis.set(`seen:${audience}:${id}`, '1', 'PX', ttlMs, 'NX')) === 'OK';
      } catch (err) {
        if (Date.now() - lastWarning > 10_000) log.warn({ err: (err as Error).message }, 'ticket replay check in this process only while Redis is away');
        lastWarning = Date.now();
        return true;
      }
    },
  };
}

/** exp + 2 × skew: the last moment any replica, its clock up to the skew off, accepts a ticket whose deadline here is `expiresAt`. */
export const rememberedUntil = (expiresAt: number) => expiresAt + CLOCK_SKEW_SECONDS * 1000;
