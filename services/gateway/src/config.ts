import { z } from 'zod';
import { DEFAULT_REDIS_URL, loadConfig, port, serviceConfigOf, serviceEnv, url } from '@tracker/kit';

const Env = serviceEnv('gateway', {
  PORT: port(8080),
  ACCESS_URL: url('http://127.0.0.1:8081'),
  ISSUES_URL: url('http://127.0.0.1:8082'),
  STATISTICS_URL: url('http://127.0.0.1:8083'),
  AGENT_URL: url('http://127.0.0.1:8084'),
  /** The public event log (services/notifications): /api/v1/events and /api/v1/webhooks. */
  NOTIFICATIONS_URL: url('http://127.0.0.1:8086'),
  /** The web pages (services/web): every GET that is not /api, /auth or /mcp goes there. */
  WEB_URL: url('http://127.0.0.1:8085'),
  REDIS_URL: url(DEFAULT_REDIS_URL),
  /** Requests per token per minute; 0 turns the limit off. */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(10_000_000).default(6000),
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(15_000),
  /**
   * The live event stream (GET /api/v1/events/stream) is not bound by UPSTREAM_TIMEOUT_MS:
   * it lasts minutes by design. It is cut when nothing came from upstream for this long,
   * longer than the 15 s at most between its keep-alives.
   */
  EVENT_STREAM_IDLE_MS: z.coerce.number().int().min(16_000).max(600_000).default(45_000),
  /** A request body must have arrived in full this long after its headers (408 otherwise). */
  BODY_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
  /** Failed authentications per client address per minute before its requests get 429; 0 turns the limit off. */
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(0).max(10_000_000).default(60),
  /**
   * Behind a reverse proxy: the header holding the client's address, set by that proxy
   * (e.g. X-Forwarded-For, whose last entry is taken). Unset: the connection's address.
   */
  CLIENT_ADDRESS_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,64}$/, 'must be a header name')
    .transform((name) => name.toLowerCase())
    .optional(),
  /**
   * Requests of one client address (CLIENT_ADDRESS_HEADER's, else the connection's) in
   * progress at once, from their headers to their answer; past it 429. Bounds what one
   * address holds of the gateway: connections, headers and bodies being read.
   */
  CLIENT_REQUESTS_IN_FLIGHT: z.coerce.number().int().min(1).max(1_000_000).default(256),
  /** How often the uses of tokens are sent to the access service (`last_used_at` is at most this late, plus the send). */
  TOKEN_USE_FLUSH_MS: z.coerce.number().int().min(50).max(55_000).default(30_000),
  AUTH_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(3_000),
  REDIS_TIMEOUT_MS: z.coerce.number().int().min(10).max(10_000).default(250),
})
  .transform((env) => ({
    ...serviceConfigOf(env),
    upstreams: { access: env.ACCESS_URL, issues: env.ISSUES_URL, statistics: env.STATISTICS_URL, agent: env.AGENT_URL, notifications: env.NOTIFICATIONS_URL, web: env.WEB_URL },
    upstreamTimeoutMs: env.UPSTREAM_TIMEOUT_MS,
    eventStreamIdleMs: env.EVENT_STREAM_IDLE_MS,
    bodyTimeoutMs: env.BODY_TIMEOUT_MS,
    auth: { timeoutMs: env.AUTH_TIMEOUT_MS, failuresPerMinute: env.AUTH_FAILURES_PER_MINUTE, clientAddressHeader: env.CLIENT_ADDRESS_HEADER },
    clientRequestsInFlight: env.CLIENT_REQUESTS_IN_FLIGHT,
    tokenUseFlushMs: env.TOKEN_USE_FLUSH_MS,
    redis: { url: env.REDIS_URL, timeoutMs: env.REDIS_TIMEOUT_MS },
    rateLimit: { perMinute: env.RATE_LIMIT_PER_MINUTE },
  }));

export type GatewayConfig = z.output<typeof Env>;

export const loadGatewayConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(Env, env);
