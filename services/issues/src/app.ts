import type { Redis } from 'ioredis';
import { accessClient, aclReader, createRedis, redisSeenTickets } from '@tracker/authz';
import { closeConnections, createLogger, createMetrics, createPool, createServiceApp, databaseReadiness, internalClient, type Logger, type Metrics } from '@tracker/kit';
import type { IssuesConfig } from './config';
import type { Pool } from 'pg';
import { createStore } from './data-access/store';
import type { IssuesDeps } from './domain/deps';
import { internalSnapshotRoutes } from './routes/internal-snapshot.route';
import { issuesRoutes } from './routes/issues.route';
import { queuesRoutes } from './routes/queues.route';
import { statusesRoutes } from './routes/statuses.route';

export interface IssuesService {
  app: ReturnType<typeof createServiceApp>;
  deps: IssuesDeps;
  pool: Pool;
  redis: Redis;
  logger: Logger;
  metrics: Metrics;
  close: () => Promise<void>;
}

export function createIssuesService(config: IssuesConfig, options: { isShuttingDown?: () => boolean } = {}): IssuesService {
  const logger = createLogger('issues', config.log.level);
  const pool = createPool(config.database, logger);
  const redis = createRedis(config.redis.url, logger);
  const access = accessClient(
    internalClient({ baseUrl: config.access.url, audience: 'access', keys: config.internal, timeoutMs: config.access.timeoutMs }),
  );
  const deps: IssuesDeps = {
    store: createStore(pool),
    grants: aclReader(redis, access, logger, config.internal.trusted),
    directory: access,
    clock: () => new Date(),
  };
  const metrics = createMetrics('issues');
  const app = createServiceApp({
    name: 'issues',
    logger,
    metrics,
    keys: config.internal,
    seenTickets: redisSeenTickets(redis, logger),
    // The snapshot holds every workspace's issues: the statistics replica alone reads it.
    internalCallers: {
      'GET /internal/snapshot/queues': ['statistics'],
      'GET /internal/snapshot/issues': ['statistics'],
      'GET /internal/snapshot/comments': ['statistics'],
    },
    isShuttingDown: options.isShuttingDown,
    // Redis is only a cache and the access service is asked per request (503 when away): neither makes this unready.
    readiness: databaseReadiness(pool),
    routes: (router) => {
      queuesRoutes(router, deps);
      statusesRoutes(router, deps);
      issuesRoutes(router, deps);
      internalSnapshotRoutes(router, deps);
    },
  });
  const close = () => closeConnections(redis, pool);
  return { app, deps, pool, redis, logger, metrics, close };
}
