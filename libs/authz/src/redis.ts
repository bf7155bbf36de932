import { Redis } from 'ioredis';
import type { Logger } from '@tracker/kit';

/**
 * Redis as every service uses it: only as a cache in front of the access service.
 * Commands fail at once while it is away (no offline queue, short timeout), so
 * nothing waits on it; reconnects are quick; outages are logged once per 10 s.
 */
export function createRedis(url: string, logger: Logger, options: { commandTimeoutMs?: number } = {}): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 250,
    retryStrategy: (attempt) => Math.min(attempt * 100, 500),
  });
  let lastWarning = 0;
  redis.on('error', (err) => {
    if (Date.now() - lastWarning > 10_000) logger.warn({ err: err.message }, 'redis unavailable');
    lastWarning = Date.now();
  });
  return redis;
}
