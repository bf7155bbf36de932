import type { Redis } from 'ioredis';
import { accessClient, aclReader, createRedis, redisSeenTickets } from '@tracker/authz';
import type { Pool } from 'pg';
import { consumerMetrics } from '@tracker/events';
import {
  closeConnections,
  createLogger,
  createMetrics,
  createPool,
  createServiceApp,
  databaseReadiness,
  internalClient,
  isDatabaseUnavailable,
  type Logger,
  type Metrics,
} from '@tracker/kit';
import type { StatisticsConfig } from './config';
import { startConsumers } from './consumers';
import { issuesSnapshotClient } from './data-access/issues-snapshot.client';
import { rebuildLock } from './data-access/rebuild-lock';
import { createStore } from './data-access/store';
import type { ReplicaStore } from './domain/ports';
import type { StatisticsDeps } from './domain/deps';
import { keepReplicaBuilt, rebuildWithLock, type ReplicaBuilderDeps } from './jobs/replica-builder';
import { dashboardsRoutes } from './routes/dashboards.route';
import { statisticsRoutes } from './routes/statistics.route';
import { unavailableErrors } from './routes/unavailable';

export interface StatisticsService {
  app: ReturnType<typeof createServiceApp>;
  deps: StatisticsDeps;
  /** The replica's writes (deps.store.replicaWrites): the consumer's and the rebuild's. */
  replica: ReplicaStore;
  builder: ReplicaBuilderDeps;
  pool: Pool;
  redis: Redis;
  logger: Logger;
  metrics: Metrics;
  /** The event consumer (src/consumers/index.ts); main starts it, tests may too. */
  startConsumers: () => ReturnType<typeof startConsumers>;
  /** Watches the replica in the background and builds it whenever it is not built (main). */
  keepReplicaBuilt: () => ReturnType<typeof keepReplicaBuilt>;
  /** The rebuild command: waits for the lock, then rebuilds (from scratch with `reset`). */
  rebuild: (options: { reset: boolean }) => ReturnType<typeof rebuildWithLock>;
  close: () => Promise<void>;
}

export function createStatisticsService(
  config: StatisticsConfig,
  options: { isShuttingDown?: () => boolean; logger?: Logger; clock?: () => Date } = {},
): StatisticsService {
  const logger = options.logger ?? createLogger('statistics', config.log.level);
  const pool = createPool(config.database, logger);
  const redis = createRedis(config.redis.url, logger);
  const client = (baseUrl: string, audience: 'access' | 'issues', timeoutMs: number) =>
    internalClient({ baseUrl, audience, keys: config.internal, timeoutMs });
  const access = accessClient(client(config.access.url, 'access', config.access.timeoutMs));
  const clock = options.clock ?? (() => new Date());
  const store = createStore(pool, { bulkStatementTimeoutMs: config.database.rebuildStatementTimeoutMs });
  const replica = store.replicaWrites;
  const deps: StatisticsDeps = {
    store,
    grants: aclReader(redis, access, logger, config.internal.trusted),
    directory: access,
    clock,
  };
  const builder: ReplicaBuilderDeps = {
    replica,
    snapshot: issuesSnapshotClient(client(config.issues.url, 'issues', config.issues.timeoutMs)),
    lock: rebuildLock(config.database),
    logger,
    clock,
  };
  const metrics = createMetrics('statistics');
  const app = createServiceApp({
    name: 'statistics',
    logger,
    metrics,
    keys: config.internal,
    seenTickets: redisSeenTickets(redis, logger),
    isShuttingDown: options.isShuttingDown,
    // Not ready to serve statistics until the replica is built, yet ready as a process:
    // the API answers those requests itself (503 statistics_unavailable with Retry-After).
    // The broker, Redis and the access service are not checked: their absence delays or
    // slows answers, and the consumer reconnects by itself.
    readiness: databaseReadiness(pool),
    routes: (router) => {
      statisticsRoutes(router, deps);
      dashboardsRoutes(router, deps);
      router.use(unavailableErrors(isDatabaseUnavailable));
    },
  });
  const clockNow = () => clock().getTime();
  metrics.gauge('tracker_replica_as_of_age_seconds', 'How far the replica lags behind: now minus the as_of of /statistics.', async () => {
    const status = await store.replicaReads.status();
    return status.asOf ? [{ value: Math.max(0, (clockNow() - status.asOf.getTime()) / 1000) }] : [];
  });
  metrics.gauge('tracker_replica_built', '1 while the replica is built and answers, 0 while it is (re)built.', async () => [
    { value: (await store.replicaReads.status()).built ? 1 : 0 },
  ]);
  // Made with the service, so /metrics shows them before the consumer starts.
  const events = consumerMetrics(metrics);
  const close = () => closeConnections(redis, pool);
  return {
    app,
    deps,
    replica,
    builder,
    pool,
    redis,
    logger,
    metrics,
    startConsumers: () => startConsumers({ replica, logger }, config, events),
    keepReplicaBuilt: () => keepReplicaBuilt(builder, { pageSize: config.issues.snapshotPageSize, pollMs: config.replica.checkIntervalMs }),
    rebuild: ({ reset }) => rebuildWithLock(builder, { reset, pageSize: config.issues.snapshotPageSize, wait: true }),
    close,
  };
}
