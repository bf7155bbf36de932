import { z } from 'zod';
import { databaseConfigOf, databaseEnv, DEFAULT_AMQP_URL, loadConfig, port, redisEnv, serviceConfigOf, serviceEnv, url } from '@tracker/kit';

const amqpName = z.string().regex(/^[A-Za-z0-9._-]{1,200}$/, 'must be 1 to 200 letters, digits, ".", "_" or "-"');
const ms = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback);

const Env = serviceEnv('notifications', {
  PORT: port(8086),
  ...databaseEnv('notifications'),
  ...redisEnv,
  AMQP_URL: url(DEFAULT_AMQP_URL),
  ACCESS_URL: url('http://127.0.0.1:8081'),
  ACCESS_TIMEOUT_MS: ms(50, 60_000, 2000),
  /** The topic exchange the issues and access services publish to; tests use their own. */
  EVENTS_EXCHANGE: amqpName.default('tracker.events'),
  /** Overrides the consumer's queue name (src/consumers/index.ts); tests use their own. */
  EVENTS_QUEUE: amqpName.optional(),
  /** Deliveries handled at once; those arriving together are recorded in one transaction. */
  EVENTS_PREFETCH: z.coerce.number().int().min(1).max(500).default(300),
  EVENTS_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(5),
  EVENTS_RETRY_DELAY_MS: ms(0, 600_000, 1000),
  /**
   * How long an event is kept after it was recorded, in hours (the feed promises 7 days:
   * keep 168 or more in production). A feed cursor older than that is 410 cursor_expired.
   */
  EVENT_RETENTION_HOURS: z.coerce.number().int().min(1).max(87_600).default(168),
  /** How often the events past their retention are deleted. */
  EVENT_PRUNE_INTERVAL_MS: ms(100, 3_600_000, 60_000),
  /** The most events one feed request looks at (those the caller may not read included), so a request's cost is bounded. */
  FEED_SCAN_MAX: z.coerce.number().int().min(500).max(1_000_000).default(10_000),
  /**
   * The longest a live stream (GET /api/v1/events/stream) lasts before the service ends it
   * and the client reconnects with Last-Event-ID: a revoked token stops, rights are read
   * anew and streams spread again over the replicas.
   */
  EVENT_STREAM_MAX_SECONDS: z.coerce.number().int().min(1).max(3600).default(300),
  /** How often an idle stream sends a `: keep-alive` comment (at most 15 s: the gateway's idle bound is longer). */
  EVENT_STREAM_KEEP_ALIVE_MS: ms(100, 15_000, 10_000),
  /** How often the replica's one watcher looks at the newest event of each workspace it streams (events show within about this plus a read). */
  EVENT_STREAM_POLL_MS: ms(50, 1000, 300),
  /** Live streams open at once on this replica; past it 429. */
  EVENT_STREAMS_MAX: z.coerce.number().int().min(1).max(100_000).default(2000),
  /** Live streams one user holds at once on this replica (tabs, devices); past it 429. */
  EVENT_STREAMS_PER_USER: z.coerce.number().int().min(1).max(1000).default(8),
}).transform((env) => ({
  ...serviceConfigOf(env),
  database: databaseConfigOf(env),
  redis: { url: env.REDIS_URL },
  access: { url: env.ACCESS_URL, timeoutMs: env.ACCESS_TIMEOUT_MS },
  events: {
    amqpUrl: env.AMQP_URL,
    exchange: env.EVENTS_EXCHANGE,
    queue: env.EVENTS_QUEUE,
    prefetch: env.EVENTS_PREFETCH,
    maxAttempts: env.EVENTS_MAX_ATTEMPTS,
    retryDelayMs: env.EVENTS_RETRY_DELAY_MS,
  },
  retention: { hours: env.EVENT_RETENTION_HOURS, pruneIntervalMs: env.EVENT_PRUNE_INTERVAL_MS },
  feed: { scanMax: env.FEED_SCAN_MAX },
  stream: {
    maxSeconds: env.EVENT_STREAM_MAX_SECONDS,
    keepAliveMs: env.EVENT_STREAM_KEEP_ALIVE_MS,
    pollMs: env.EVENT_STREAM_POLL_MS,
    maxOpen: env.EVENT_STREAMS_MAX,
    perUser: env.EVENT_STREAMS_PER_USER,
  },
}));

export type NotificationsConfig = z.output<typeof Env>;

export const loadNotificationsConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(Env, env);
