import { z } from 'zod';
import { loadConfig, port, redisEnv, serviceConfigOf, serviceEnv, url } from '@tracker/kit';

const Env = serviceEnv('agent', {
  PORT: port(8084),
  ACCESS_URL: url('http://127.0.0.1:8081'),
  ISSUES_URL: url('http://127.0.0.1:8082'),
  STATISTICS_URL: url('http://127.0.0.1:8083'),
  NOTIFICATIONS_URL: url('http://127.0.0.1:8086'),
  /** Redis: where accepted tickets are remembered, shared by the replicas (nothing else is kept there). */
  ...redisEnv,
  /** Longest wait for the service a tool calls; the same bound the gateway puts on a REST request. */
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(15_000),
  /**
   * Tool calls one user (user and workspace) may have running at once in this process;
   * past it a call is refused at once as 429 `rate_limited`, to be retried.
   */
  TOOL_CALLS_IN_FLIGHT_PER_USER: z.coerce.number().int().min(1).max(1000).default(8),
}).transform((env) => ({
  ...serviceConfigOf(env),
  upstreams: { access: env.ACCESS_URL, issues: env.ISSUES_URL, statistics: env.STATISTICS_URL, notifications: env.NOTIFICATIONS_URL },
  upstreamTimeoutMs: env.UPSTREAM_TIMEOUT_MS,
  toolCallsInFlightPerUser: env.TOOL_CALLS_IN_FLIGHT_PER_USER,
  redis: { url: env.REDIS_URL },
}));

export type AgentConfig = z.output<typeof Env>;

export const loadAgentConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(Env, env);
