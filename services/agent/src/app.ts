import type { Redis } from 'ioredis';
import { createRedis, redisSeenTickets } from '@tracker/authz';
import { createLogger, createMetrics, createServiceApp, type Logger, type Metrics } from '@tracker/kit';
import type { AgentConfig } from './config';
import { callsInFlight } from './data-access/calls-in-flight';
import { serviceClients } from './data-access/services.client';
import type { AgentDeps } from './domain/deps';
import { mcpRoutes } from './routes/mcp.route';

export interface AgentService {
  app: ReturnType<typeof createServiceApp>;
  deps: AgentDeps;
  redis: Redis;
  logger: Logger;
  metrics: Metrics;
  close: () => Promise<void>;
}

export function createAgentService(config: AgentConfig, options: { isShuttingDown?: () => boolean } = {}): AgentService {
  const logger = createLogger('agent', config.log.level);
  const metrics = createMetrics('agent');
  const redis = createRedis(config.redis.url, logger);
  const deps: AgentDeps = { services: serviceClients(config), metrics, callsInFlight: callsInFlight(config.toolCallsInFlightPerUser) };
  const app = createServiceApp({
    name: 'agent',
    logger,
    metrics,
    keys: config.internal,
    seenTickets: redisSeenTickets(redis, logger),
    isShuttingDown: options.isShuttingDown,
    // No store of its own: a service it calls being away is that tool's 503, not a reason
    // to take every tool away (the other services' readiness speaks for them).
    readiness: {},
    userPaths: ['/mcp'],
    routes: (router) => mcpRoutes(router, deps),
  });
  const close = async () => {
    redis.disconnect();
  };
  return { app, deps, redis, logger, metrics, close };
}
