import { createLogger, createServiceApp } from '@tracker/kit';
import type { IssuesConfig } from './config';

// The issues API arrives with its own issue; until then the service answers health checks.
export function createIssuesService(config: IssuesConfig, options: { isShuttingDown?: () => boolean } = {}) {
  const logger = createLogger('issues', config.log.level);
  const app = createServiceApp({
    name: 'issues',
    logger,
    secrets: config.internal.secrets,
    isShuttingDown: options.isShuttingDown,
    routes: () => {},
  });
  return { app, logger, close: async () => {} };
}
