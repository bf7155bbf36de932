import type { Redis } from 'ioredis';
import { createRedis, redisSeenTickets } from '@tracker/authz';
import { closeConnections, createLogger, createMetrics, createPool, createServiceApp, databaseReadiness, type Logger, type Metrics } from '@tracker/kit';
import type { Pool } from 'pg';
import type { AccessConfig } from './config';
import { argon2Passwords } from './data-access/passwords';
import { sharedCache, type SharedCache } from './data-access/shared-cache';
import { signInThrottle } from './data-access/sign-in-throttle';
import { createStore } from './data-access/store';
import type { AccessDeps } from './domain/deps';
import { AUTH_ROUTES } from '@tracker/contracts';
import { authRoutes } from './routes/auth.route';
import { internalAuthRoutes } from './routes/internal-auth.route';
import { internalQueuesRoutes } from './routes/internal-queues.route';
import { permissionsRoutes } from './routes/permissions.route';
import { tokensRoutes } from './routes/tokens.route';
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
  const metrics = createMetrics('access');
  const deps: AccessDeps = {
    store: createStore(pool),
    cache,
    passwords: argon2Passwords(),
    throttle: signInThrottle(redis),
    signIns: metrics.counter('tracker_sign_ins_total', 'Sign-ins by outcome: signed_in, invalid_credentials, throttled.', ['outcome']),
    accounts: config.accounts,
    authCacheTtlSeconds: config.authCache.ttlSeconds,
    clock: () => new Date(),
  };
  const app = createServiceApp({
    name: 'access',
    logger,
    metrics,
    keys: config.internal,
    seenTickets: redisSeenTickets(redis, logger),
    // /auth: people not signed in yet, forwarded by the gateway with a ticket naming no user.
    servicePaths: ['/internal', '/auth'],
    internalCallers: {
      ...Object.fromEntries(AUTH_ROUTES.map((route) => [`${route.method} ${route.path}`, ['gateway'] as const])),
      'POST /internal/auth/resolve': ['gateway'],
      'POST /internal/tokens/used': ['gateway'],
      'POST /internal/queues': ['issues', 'statistics'],
      'POST /internal/queues/lookup': ['issues', 'statistics'],
      'GET /internal/acl/users/:user_id': ['issues', 'statistics', 'notifications'],
      'POST /internal/users/lookup': ['issues', 'statistics'],
    },
    isShuttingDown: options.isShuttingDown,
    // Redis is a cache: its absence slows auth down but does not make the service unready.
    readiness: databaseReadiness(pool),
    routes: (router) => {
      usersRoutes(router, deps);
      authRoutes(router, deps);
      tokensRoutes(router, deps);
      internalAuthRoutes(router, deps);
      permissionsRoutes(router, deps);
      internalQueuesRoutes(router, deps);
    },
  });
  const close = () => closeConnections(redis, pool);
  return { app, deps, pool, cache, redis, logger, metrics, close };
}
