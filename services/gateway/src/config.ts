import { z } from 'zod';
import { DEFAULT_REDIS_URL, loadConfig, port, serviceEnv, url } from '@tracker/kit';

const Env = serviceEnv({
  PORT: port(8080),
  ACCESS_URL: url('http://127.0.0.1:8081'),
  ISSUES_URL: url('http://127.0.0.1:8082'),
  STATISTICS_URL: url('http://127.0.0.1:8083'),
  REDIS_URL: url(DEFAULT_REDIS_URL),
  /** Requests per token per minute; 0 turns the limit off. */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(10_000_000).default(6000),
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(15_000),
  AUTH_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(3_000),
  REDIS_TIMEOUT_MS: z.coerce.number().int().min(10).max(10_000).default(250),
})
  .transform((env) => ({
    env: env.NODE_ENV,
    http: { host: env.HOST, port: env.PORT, shutdownGraceMs: env.SHUTDOWN_GRACE_MS },
    log: { level: env.LOG_LEVEL },
    upstreams: { access: env.ACCESS_URL, issues: env.ISSUES_URL, statistics: env.STATISTICS_URL },
    upstreamTimeoutMs: env.UPSTREAM_TIMEOUT_MS,
    auth: { timeoutMs: env.AUTH_TIMEOUT_MS },
    redis: { url: env.REDIS_URL, timeoutMs: env.REDIS_TIMEOUT_MS },
    rateLimit: { perMinute: env.RATE_LIMIT_PER_MINUTE },
    internal: { secret: env.INTERNAL_SECRET },
  }));

export type GatewayConfig = z.output<typeof Env>;

export const loadGatewayConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(Env, env);
