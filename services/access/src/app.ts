import type { Redis } from 'ioredis';
import { createRedis, redisSeenTickets } from '@tracker/authz';
import { createLogger, createMetrics, createPool, createServiceApp, type Logger, type Metrics } from '@tracker/kit';
import type { Pool } from 'pg';
import type { AccessConfig } from './config';
import { sharedCache, type SharedCache } from './data-access/shared-cache';
import { createStore } from './data-access/store';
import type { AccessDeps } from './domain/deps';
import { internalAuthRoutes } from './routes/internal-auth.route';
import { internalQueuesRoutes } from './routes/internal-queues.route';
import { permissionsRoutes } from './routes/permissions.route';
import { usersRoutes } from './routes/users.route';

export interface AccessService {
  app: ReturnType<typeof createServiceApp>;
  deps: AccessDeps;
  pool: Pool;
  /** The caches' upkeep (keepFresh, settleDebts) besides what the use cases use. */
  cache: SharedCache;
  redis: Redis;
  logger: Logger;
  metrics: Metrics;
  close: () => Promise<void>;
}

export function createAccessService(config: AccessConfig, options: { isShuttingDown?: () => boolean } = {}): AccessService {
  const logger = createLogger('access', config.log.level);
  const pool = createPool(config.database, logger);
  const redis = createRedis(config.redis.url, logger, { commandTimeoutMs: 500 });
  const cache = sharedCache(redis, pool, config.authCache.ttlSeconds, logger, config.internal.key);
  const deps: AccessDeps = { store: createStore(pool), cache };
  const metrics = createMetrics('access');
  const app = createServiceApp({
    name: 'access',
    logger,
    metrics,
    keys: config.internal,
    seenTickets: redisSeenTickets(redis, logger),
    internalCallers: {
      'POST /internal/auth/resolve': ['gateway'],
      'POST /internal/queues': ['issues', 'statistics'],
      'POST /internal/queues/lookup': ['issues', 'statistics'],
      'GET /internal/acl/users/:user_id': ['issues', 'statistics'],
      'POST /internal/users/lookup': ['issues', 'statistics'],
    },
    isShuttingDown: options.isShuttingDown,
    readiness: {
      database: () => pool.query('SELECT 1'),
      // Redis is a cache: its absence slows auth down but does not make the service unready.
    },
    routes: (router) => {
      usersRoutes(router, deps);
      internalAuthRoutes(router, deps);
      permissionsRoutes(router, deps);
      internalQueuesRoutes(router, deps);
    },
  });
  const close = async () => {
    redis.disconnect();
    if (!pool.ended) await pool.end();
  };
  return { app, deps, pool, cache, redis, logger, metrics, close };
}
