import type { Redis } from 'ioredis';
import { createRedis, redisSeenTickets } from '@tracker/authz';
import { createLogger, createMetrics, createServiceApp, type Logger, type Metrics } from '@tracker/kit';
import type { AccessConfig } from './config';
import { sharedCache } from './data-access/shared-cache';
import { createDb, type Db } from './data-access/prisma';
import { permissionsRepository } from './data-access/permissions.repository';
import { tokensRepository } from './data-access/tokens.repository';
import { usersRepository } from './data-access/users.repository';
import { workspacesRepository } from './data-access/workspaces.repository';
import type { AccessDeps } from './domain/deps';
import { internalAuthRoutes } from './routes/internal-auth.route';
import { internalQueuesRoutes } from './routes/internal-queues.route';
import { permissionsRoutes } from './routes/permissions.route';
import { usersRoutes } from './routes/users.route';

export interface AccessService {
  app: ReturnType<typeof createServiceApp>;
  deps: AccessDeps;
  db: Db;
  redis: Redis;
  logger: Logger;
  metrics: Metrics;
  close: () => Promise<void>;
}

export function createAccessService(config: AccessConfig, options: { isShuttingDown?: () => boolean } = {}): AccessService {
  const logger = createLogger('access', config.log.level);
  const db = createDb(config.database);
  const redis = createRedis(config.redis.url, logger, { commandTimeoutMs: 500 });
  const deps: AccessDeps = {
    users: usersRepository(db),
    tokens: tokensRepository(db),
    workspaces: workspacesRepository(db),
    permissions: permissionsRepository(db),
    cache: sharedCache(redis, db, config.authCache.ttlSeconds, logger, config.internal.key),
  };
  const metrics = createMetrics('access');
  const app = createServiceApp({
    name: 'access',
    logger,
    metrics,
    trusted: config.internal.trusted,
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
      database: () => db.$queryRaw`SELECT 1`,
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
    await db.$disconnect();
  };
  return { app, deps, db, redis, logger, metrics, close };
}
