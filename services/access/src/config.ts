import { z } from 'zod';
import { DEFAULT_AMQP_URL, DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL, loadConfig, port, serviceEnv, statementTimeoutEnv, url } from '@tracker/kit';

const Env = serviceEnv('access', {
  PORT: port(8081),
  DATABASE_URL: url(DEFAULT_DATABASE_URL),
  DATABASE_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier').default('access'),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  /** Longest a statement may run, lock waits included (503 with Retry-After past it). */
  DATABASE_STATEMENT_TIMEOUT_MS: statementTimeoutEnv(),
  AMQP_URL: url(DEFAULT_AMQP_URL),
  /** How often the outbox relay looks for new rows when idle. */
  OUTBOX_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(100),
  /** The topic exchange events are published to (tests give each system its own). */
  EVENTS_EXCHANGE: z.string().regex(/^[A-Za-z0-9._-]{1,200}$/).default('tracker.events'),
  REDIS_URL: url(DEFAULT_REDIS_URL),
  AUTH_CACHE_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
})
  .transform((env) => ({
    env: env.NODE_ENV,
    http: { host: env.HOST, port: env.PORT, shutdownGraceMs: env.SHUTDOWN_GRACE_MS },
    log: { level: env.LOG_LEVEL },
    metrics: { port: env.METRICS_PORT },
    database: { url: env.DATABASE_URL, schema: env.DATABASE_SCHEMA, poolMax: env.DATABASE_POOL_MAX, statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS },
    outbox: { amqpUrl: env.AMQP_URL, pollIntervalMs: env.OUTBOX_POLL_MS, exchange: env.EVENTS_EXCHANGE },
    redis: { url: env.REDIS_URL },
    authCache: { ttlSeconds: env.AUTH_CACHE_TTL_SECONDS },
    internal: env.internal,
  }));

export type AccessConfig = z.output<typeof Env>;

export const loadAccessConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(Env, env);
