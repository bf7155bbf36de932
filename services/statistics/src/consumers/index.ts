import { consumeServiceSubscriptions, type ConsumerMetrics, type ConsumerServiceConfig, type StartedSubscriptions, type Subscription } from '@tracker/events';
import type { Logger } from '@tracker/kit';
import type { ReplicaStore } from '../domain/ports';
import { replicaEventsHandler } from './replica-events.consumer';

/**
 * Every event this service reacts to. Permissions and users are not replicated:
 * authorization asks the access service (through its Redis cache) on each request.
 */
export const REPLICA_EVENTS_QUEUE = 'statistics.events';
export const REPLICA_EVENTS_BINDINGS = ['tracker.queue.*', 'tracker.issue.*', 'tracker.comment.*', 'tracker.worklog.*'];

export function subscriptions(deps: { replica: ReplicaStore; logger: Logger }): Subscription[] {
  return [{ queue: REPLICA_EVENTS_QUEUE, bindings: REPLICA_EVENTS_BINDINGS, handler: replicaEventsHandler(deps.replica, deps.logger) }];
}

/** Starts one consumer per subscription, measured by the service's consumer metrics; stop() stops them all, waiting for handlers in flight. */
export const startConsumers = (deps: { replica: ReplicaStore; logger: Logger }, config: ConsumerServiceConfig, metrics: ConsumerMetrics): StartedSubscriptions =>
  consumeServiceSubscriptions('statistics', subscriptions(deps), config, metrics, deps.logger);
