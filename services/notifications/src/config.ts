import { createSecretKey, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { consumerConfigOf, consumerEnv } from '@tracker/events';
import { databaseConfigOf, databaseEnv, loadConfig, port, redisEnv, serviceConfigOf, serviceEnv, url } from '@tracker/kit';
import { parseAllowedTargets } from './domain/targets.rules';
import { parseRetrySchedule } from './domain/webhook.rules';

const ms = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback);

const Env = serviceEnv('notifications', {
  PORT: port(8086),
  ...databaseEnv('notifications'),
  ...redisEnv,
  ...consumerEnv,
  ACCESS_URL: url('http://127.0.0.1:8081'),
  ACCESS_TIMEOUT_MS: ms(50, 60_000, 2000),
  /**
   * How long an event is kept after it was recorded, in hours (the feed promises 7 days:
   * keep 168 or more in production). A feed cursor older than that is 410 cursor_expired.
   */
  EVENT_RETENTION_HOURS: z.coerce.number().int().min(1).max(87_600).default(168),
  /** How often the events past their retention are deleted. */
  EVENT_PRUNE_INTERVAL_MS: ms(100, 3_600_000, 60_000),
  /** The most events one feed request looks at (those the caller may not read included), so a request's cost is bounded. */
  FEED_SCAN_MAX: z.coerce.number().int().min(500).max(1_000_000).default(10_000),
  /** Seconds before each retry of a failed delivery, comma-separated (about three days in all by default); after the last the webhook is disabled. */
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default('5,300,1800,7200,18000,36000,50400,72000,86400')
    .transform((text, ctx) => parseRetrySchedule(text) ?? (ctx.addIssue({ code: 'custom', message: 'must be 1 to 30 whole numbers of seconds from 1 to 604800, comma-separated' }), z.NEVER)),
  /** Delivery attempts in flight on one replica at most: many, so that dead endpoints (each holding at most its own few) never hold up the rest. */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(5000).default(400),
  /**
   * Delivery attempts in flight per webhook at most, across every replica: what one endpoint
   * takes at once. At 100 ms an answer, 10 at once keep up with 100 events a second.
   */
  WEBHOOK_CONCURRENCY_PER_ENDPOINT: z.coerce.number().int().min(1).max(100).default(10),
  /** How often each replica looks for deliveries due (a delivery waits at most this long after its event is recorded). */
  WEBHOOK_POLL_INTERVAL_MS: ms(10, 60_000, 250),
  /** Seals the webhook secrets at rest (domain/secret-box.ts): base64 of 32 random bytes; unset outside production: a development key. */
  WEBHOOK_SECRETS_KEY: z.string().optional(),
  /** Hosts, IPs and CIDRs webhooks may reach although private or special (domain/targets.rules.ts); default none. */
  WEBHOOK_ALLOWED_TARGETS: z
    .string()
    .max(10_000)
    .default('')
    .transform((text, ctx) => {
      const parsed = parseAllowedTargets(text);
      if (parsed.ok) return parsed.allowed;
      for (const message of parsed.errors) ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    }),
  /** One delivery's bound, connection, answer and body included. */
  WEBHOOK_TIMEOUT_MS: ms(1000, 30_000, 10_000),
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
}).transform((env, ctx) => ({
  ...serviceConfigOf(env),
  database: databaseConfigOf(env),
  redis: { url: env.REDIS_URL },
  access: { url: env.ACCESS_URL, timeoutMs: env.ACCESS_TIMEOUT_MS },
  events: consumerConfigOf(env),
  retention: { hours: env.EVENT_RETENTION_HOURS, pruneIntervalMs: env.EVENT_PRUNE_INTERVAL_MS },
  feed: { scanMax: env.FEED_SCAN_MAX },
  delivery: {
    retryScheduleSeconds: env.WEBHOOK_RETRY_SCHEDULE,
    concurrency: env.WEBHOOK_CONCURRENCY,
    perEndpoint: env.WEBHOOK_CONCURRENCY_PER_ENDPOINT,
    pollMs: env.WEBHOOK_POLL_INTERVAL_MS,
  },
  webhooks: { allowed: env.WEBHOOK_ALLOWED_TARGETS, secretsKey: webhookSecretsKeyOf(env, ctx), timeoutMs: env.WEBHOOK_TIMEOUT_MS },
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

/** The development WEBHOOK_SECRETS_KEY (SHA-256 of a fixed text): used where it is unset outside production, refused in production. */
export const DEV_WEBHOOK_SECRETS_KEY = 'W/o28MLF2hSQLmThzE9aGW87t+ObXwhZjKID20N8dGM=';

/**
 * WEBHOOK_SECRETS_KEY as a key (a KeyObject, which the frozen config leaves as it is): base64
 * or base64url of 32 bytes. In production it is required, the development key is refused,
 * and so is one of under 16 distinct bytes, as libs/kit refuses development signing keys.
 */
function webhookSecretsKeyOf(env: { NODE_ENV: string; WEBHOOK_SECRETS_KEY?: string }, ctx: z.RefinementCtx): KeyObject {
  const path = ['WEBHOOK_SECRETS_KEY'];
  const production = env.NODE_ENV === 'production';
  const text = env.WEBHOOK_SECRETS_KEY ?? (production ? undefined : DEV_WEBHOOK_SECRETS_KEY);
  const fallback = createSecretKey(Buffer.from(DEV_WEBHOOK_SECRETS_KEY, 'base64'));
  if (text === undefined) {
    ctx.addIssue({ code: 'custom', path, message: 'must be set in production (base64 of 32 random bytes)' });
    return fallback;
  }
  const bytes = Buffer.from(text, 'base64');
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(text) || bytes.length !== 32) {
    ctx.addIssue({ code: 'custom', path, message: 'must be the base64 of 32 bytes' });
  } else if (production && bytes.equals(Buffer.from(DEV_WEBHOOK_SECRETS_KEY, 'base64'))) {
    ctx.addIssue({ code: 'custom', path, message: 'is the development key' });
  } else if (production && new Set(bytes).size < 16) {
    ctx.addIssue({ code: 'custom', path, message: 'is not random enough' });
  } else {
    return createSecretKey(bytes);
  }
  return fallback;
}
