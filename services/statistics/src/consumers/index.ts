import { startConsumer, type Consumer, type ConsumerOptions, type EventHandler } from '@tracker/events';
import type { Logger, SigningKey, TrustedKeys } from '@tracker/kit';
import type { ReplicaStore } from '../domain/replica';
import { replicaEventsHandler } from './replica-events.consumer';

/**
 * Every event this service reacts to. Permissions and users are not replicated:
 * authorization asks the access service (through its Redis cache) on each request.
 */
export const REPLICA_EVENTS_QUEUE = 'statistics.events';
export const REPLICA_EVENTS_BINDINGS = ['tracker.queue.*', 'tracker.issue.*', 'tracker.comment.*', 'tracker.worklog.*'];

export interface Subscription {
  queue: string;
  bindings: string[];
  handler: EventHandler;
}

export function subscriptions(deps: { replica: ReplicaStore; logger: Logger }): Subscription[] {
  return [{ queue: REPLICA_EVENTS_QUEUE, bindings: REPLICA_EVENTS_BINDINGS, handler: replicaEventsHandler(deps.replica, deps.logger) }];
}

export interface ConsumersConfig {
  amqpUrl: string;
  exchange: string;
  /** Replaces the queue name (tests give each file its own queue). */
  queue?: string;
  prefetch: number;
  maxAttempts: number;
  retryDelayMs: number;
  /** The publishers' public keys (`config.internal.trusted`): only events proved by their publisher (signed or tagged) are applied. */
  trusted: TrustedKeys;
  /** This service's own key (`config.internal.key`): tags are checked under the keys it shares with each publisher. */
  key: SigningKey;
  onOutcome?: ConsumerOptions['onOutcome'];
}

/** Starts one consumer per subscription; stop() stops them all, waiting for handlers in flight. */
export function startConsumers(
  deps: { replica: ReplicaStore; logger: Logger },
  config: ConsumersConfig,
): { consumers: Consumer[]; watched: Array<{ queue: string; depth: Consumer['depth'] }>; ready: () => Promise<void>; stop: () => Promise<void> } {
  const subs = subscriptions(deps);
  const consumers = subs.map((s) =>
    startConsumer({
      amqpUrl: config.amqpUrl,
      exchange: config.exchange,
      queue: config.queue ?? s.queue,
      bindings: s.bindings,
      handler: s.handler,
      trusted: config.trusted,
      key: config.key,
      logger: deps.logger,
      prefetch: config.prefetch,
      maxAttempts: config.maxAttempts,
      retryDelayMs: config.retryDelayMs,
      connectionName: `statistics:${config.queue ?? s.queue}`,
      onOutcome: config.onOutcome,
    }),
  );
  return {
    consumers,
    watched: consumers.map((c, i) => ({ queue: config.queue ?? subs[i]!.queue, depth: () => c.depth() })),
    ready: async () => {
      await Promise.all(consumers.map((c) => c.ready()));
    },
    stop: async () => {
      await Promise.all(consumers.map((c) => c.stop()));
    },
  };
}
