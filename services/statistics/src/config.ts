import { z } from 'zod';
import { consumerConfigOf, consumerEnv } from '@tracker/events';
import { databaseConfigOf, databaseEnv, loadConfig, port, redisEnv, serviceConfigOf, serviceEnv, url } from '@tracker/kit';

const ms = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback);

const Env = serviceEnv('statistics', {
  PORT: port(8083),
  ...databaseEnv('statistics'),
  /** DATABASE_STATEMENT_TIMEOUT_MS for the statements of a replica rebuild (whole snapshot pages at once). */
  REBUILD_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(120_000),
  ...redisEnv,
  ...consumerEnv,
  ACCESS_URL: url('http://127.0.0.1:8081'),
  ACCESS_TIMEOUT_MS: ms(50, 60_000, 2000),
  ISSUES_URL: url('http://127.0.0.1:8082'),
  /** One snapshot page (at most 1000 rows and about 1 MiB of text, SNAPSHOT_LIMITS). */
  ISSUES_TIMEOUT_MS: ms(50, 300_000, 30_000),
  SNAPSHOT_PAGE_SIZE: z.coerce.number().int().min(1).max(1000).default(500),
  /** How often a running service checks that the replica is built (and builds it if not). */
  REPLICA_CHECK_INTERVAL_MS: ms(100, 600_000, 5000),
})
  .transform((env) => ({
    ...serviceConfigOf(env),
    database: { ...databaseConfigOf(env), rebuildStatementTimeoutMs: env.REBUILD_STATEMENT_TIMEOUT_MS },
    redis: { url: env.REDIS_URL },
    access: { url: env.ACCESS_URL, timeoutMs: env.ACCESS_TIMEOUT_MS },
    issues: { url: env.ISSUES_URL, timeoutMs: env.ISSUES_TIMEOUT_MS, snapshotPageSize: env.SNAPSHOT_PAGE_SIZE },
    replica: { checkIntervalMs: env.REPLICA_CHECK_INTERVAL_MS },
    events: consumerConfigOf(env),
  }));

export type StatisticsConfig = z.output<typeof Env>;

export const loadStatisticsConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(Env, env);
