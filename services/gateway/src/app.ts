import express from 'express';
import type { Redis } from 'ioredis';
import { createRedis } from '@tracker/authz';
import { createBaseApp, createLogger, createMetrics, finishApp, type Logger, type Metrics } from '@tracker/kit';
import type { GatewayConfig } from './config';
import { accessClient } from './data-access/access-client';
import { authStore } from './data-access/auth-store';
import { blockedClients } from './data-access/blocked-clients';
import { inFlight, inFlightPerKey } from './data-access/in-flight';
import { tokenUses } from './data-access/token-uses';
import type { GatewayDeps } from './domain/deps';
import { apiRoutes } from './routes/api.route';
import { authRoutes } from './routes/auth.route';
import { openApiRoutes } from './routes/openapi.route';
import { webRoutes } from './routes/web.route';

/**
 * Tokens from blocked clients that the cache cannot vouch for, resolved by the access
 * service at once and per second, in each gateway process: enough for the people behind
 * a shared address to get in, never a flood's worth of lookups (or of unknown-token
 * entries in Redis).
 */
const BLOCKED_CLIENT_RESOLVES = { atOnce: 4, perSecond: 20 };

export interface GatewayService {
  app: express.Express;
  deps: GatewayDeps;
  redis: Redis;
  logger: Logger;
  metrics: Metrics;
  /** Ends the live streams being forwarded (shutdown begins: a stream never drains by itself). */
  endStreams: () => void;
  close: () => Promise<void>;
}

export function createGatewayService(config: GatewayConfig, options: { isShuttingDown?: () => boolean } = {}): GatewayService {
  const logger = createLogger('gateway', config.log.level);
  // Redis only speeds auth up and counts requests: commands fail fast while it is away.
  const redis = createRedis(config.redis.url, logger, { commandTimeoutMs: config.redis.timeoutMs });
  const access = accessClient({ baseUrl: config.upstreams.access, keys: config.internal, timeoutMs: config.auth.timeoutMs });
  const uses = tokenUses(access, config.tokenUseFlushMs, logger);
  const deps: GatewayDeps = {
    store: authStore(redis, config.internal.trusted, logger),
    access,
    blockedClients: blockedClients(),
    tokenUses: uses,
    blockedClientResolves: inFlight(BLOCKED_CLIENT_RESOLVES.atOnce, BLOCKED_CLIENT_RESOLVES.perSecond),
    limits: { requestsPerToken: config.rateLimit.perMinute, failuresPerClient: config.auth.failuresPerMinute },
    clock: () => new Date(),
  };
  const metrics = createMetrics('gateway');
  const app = createBaseApp({ name: 'gateway', logger, metrics, isShuttingDown: options.isShuttingDown });
  const router = express.Router();
  // The published schema needs no token, so it is mounted first.
  openApiRoutes(router);
  const clientsInFlight = inFlightPerKey(config.clientRequestsInFlight);
  authRoutes(router, config, clientsInFlight);
  const streams = apiRoutes(router, deps, config, clientsInFlight);
  // Last: every other GET is a web page's.
  webRoutes(router, config, clientsInFlight);
  app.use(router);
  finishApp(app);
  const close = async () => {
    await uses.stop();
    redis.disconnect();
  };
  return { app, deps, redis, logger, metrics, endStreams: streams.endAll, close };
}
