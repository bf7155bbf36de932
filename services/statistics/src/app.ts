import { createLogger, createServiceApp } from '@tracker/kit';
import type { StatisticsConfig } from './config';

// The statistics API arrives with its own issue; until then the service answers health checks.
export function createStatisticsService(config: StatisticsConfig, options: { isShuttingDown?: () => boolean } = {}) {
  const logger = createLogger('statistics', config.log.level);
  const app = createServiceApp({
    name: 'statistics',
    logger,
    secrets: config.internal.secrets,
    isShuttingDown: options.isShuttingDown,
    routes: () => {},
  });
  return { app, logger, close: async () => {} };
}
