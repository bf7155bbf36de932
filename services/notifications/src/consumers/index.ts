import { consumeServiceSubscriptions, type ConsumerMetrics, type ConsumerServiceConfig, type StartedSubscriptions, type Subscription } from '@tracker/events';
import type { Logger } from '@tracker/kit';
import type { RecordDeps } from '../domain/record-events.use-case';
import { publicEventsHandler, type OnRecorded } from './public-events.consumer';

/**
 * Every event this service reacts to: all the integration events, each the source of one
 * public event (docs/decisions.md, "Webhooks and the event feed").
 */
export const PUBLIC_EVENTS_QUEUE = 'notifications.events';
export const PUBLIC_EVENTS_BINDINGS = ['tracker.queue.*', 'tracker.issue.*', 'tracker.comment.*', 'tracker.worklog.*', 'tracker.permission.*', 'tracker.user.*'];

export function subscriptions(deps: RecordDeps & { logger: Logger; onRecorded?: OnRecorded }): Subscription[] {
  return [{ queue: PUBLIC_EVENTS_QUEUE, bindings: PUBLIC_EVENTS_BINDINGS, handler: publicEventsHandler(deps, deps.logger, deps.onRecorded) }];
}

/** Starts one consumer per subscription, measured by the service's consumer metrics; stop() stops them all, waiting for handlers in flight. */
export const startConsumers = (
  deps: RecordDeps & { logger: Logger; onRecorded?: OnRecorded },
  config: ConsumerServiceConfig,
  metrics: ConsumerMetrics,
): StartedSubscriptions => consumeServiceSubscriptions('notifications', subscriptions(deps), config, metrics, deps.logger);
