import { Redis } from 'ioredis';
import type { Logger } from '@tracker/kit';

/**
 * The Redis connection every service but web opens. Nothing in Redis is a source of
 * truth: it holds the authorization caches in front of the access service (written and
 * signed by access alone, read by the gateway, issues, statistics and notifications:
 * cache-protocol.ts), the ids of accepted tickets that each service that takes tickets
 * writes under its own `seen:<service>:*` keys (seen-tickets.ts), the gateway's
 * rate-limit and failed-authentication counters, and the access service's sign-in
 * failure counters; each with a TTL. Commands fail at once while it is away (no offline
 * queue, short timeout), so nothing waits on it; reconnects are quick; outages are
 * logged once per 10 s.
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
