import type { Redis } from 'ioredis';
import { inProcessSeenTickets, type Logger, type SeenTickets } from '@tracker/kit';

/**
 * Accepted tickets remembered in Redis, so a ticket accepted by one replica of a service
 * is refused by every other. SET NX with the ticket's remaining lifetime: one round trip.
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
      const ttlMs = Math.max(1, expiresAt - Date.now() + 1_000);
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
