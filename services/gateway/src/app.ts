import express from 'express';
import type { Redis } from 'ioredis';
import { createRedis } from '@tracker/authz';
import { AppError, createBaseApp, createLogger, createMetrics, finishApp, UpstreamUnavailableError, type Logger, type Metrics } from '@tracker/kit';
import type { GatewayConfig } from './config';
import { accessClient } from './data-access/access-client';
import { authStore } from './data-access/auth-store';
import { apiRoutes } from './routes/api.route';
import { openApiRoutes } from './routes/openapi.route';

export interface Gateway {
  app: express.Express;
  redis: Redis;
  logger: Logger;
  metrics: Metrics;
  close: () => Promise<void>;
}

export function createGateway(config: GatewayConfig, options: { isShuttingDown?: () => boolean } = {}): Gateway {
  const logger = createLogger('gateway', config.log.level);
  // Redis only speeds auth up and counts requests: commands fail fast while it is away.
  const redis = createRedis(config.redis.url, logger, { commandTimeoutMs: config.redis.timeoutMs });

  const metrics = createMetrics('gateway');
  const app = createBaseApp({ name: 'gateway', logger, metrics, isShuttingDown: options.isShuttingDown });
  const router = express.Router();
  openApiRoutes(router);
  apiRoutes(router, {
    config,
    store: authStore(redis, config.internal.trusted, logger),
    access: accessClient({ baseUrl: config.upstreams.access, key: config.internal.key, timeoutMs: config.auth.timeoutMs }),
  });
  app.use(router);
  app.use((err: unknown, _req: express.Request, _res: express.Response, next: express.NextFunction) => {
    // Without the access service no token can be checked: the caller may retry.
    if (err instanceof UpstreamUnavailableError) {
      return next(new AppError('service_unavailable', 'Authentication is temporarily unavailable. Retry later.', { headers: { 'Retry-After': '5' } }));
    }
    next(err);
  });
  finishApp(app);
  return {
    app,
    redis,
    logger,
    metrics,
    close: async () => {
      redis.disconnect();
    },
  };
}
