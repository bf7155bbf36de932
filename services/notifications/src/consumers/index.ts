import { startConsumer, type Consumer, type ConsumerOptions, type EventHandler } from '@tracker/events';
import type { Logger, SigningKey, TrustedKeys } from '@tracker/kit';
import type { RecordDeps } from '../domain/record-events.use-case';
import { publicEventsHandler, type OnRecorded } from './public-events.consumer';

/**
 * Every event this service reacts to: all the integration events, each the source of one
 * public event (docs/decisions.md, "Webhooks and the event feed").
 */
export const PUBLIC_EVENTS_QUEUE = 'notifications.events';
export const PUBLIC_EVENTS_BINDINGS = ['tracker.queue.*', 'tracker.issue.*', 'tracker.comment.*', 'tracker.worklog.*', 'tracker.permission.*', 'tracker.user.*'];

export interface Subscription {
  queue: string;
  bindings: string[];
  handler: EventHandler;
}

export function subscriptions(deps: RecordDeps & { logger: Logger; onRecorded?: OnRecorded }): Subscription[] {
  return [{ queue: PUBLIC_EVENTS_QUEUE, bindings: PUBLIC_EVENTS_BINDINGS, handler: publicEventsHandler(deps, deps.logger, deps.onRecorded) }];
}

export interface ConsumersConfig {
  amqpUrl: string;
  exchange: string;
  /** Replaces the queue name (tests and each system of the end-to-end tests have their own). */
  queue?: string;
  prefetch: number;
  maxAttempts: number;
  retryDelayMs: number;
  /** The publishers' public keys (`config.internal.trusted`): only events proved by their publisher (signed or tagged) are recorded. */
  trusted: TrustedKeys;
  /** This service's own key (`config.internal.key`): tags are checked under the keys it shares with each publisher. */
  key: SigningKey;
  onOutcome?: ConsumerOptions['onOutcome'];
}

/** Starts one consumer per subscription; stop() stops them all, waiting for handlers in flight. */
export function startConsumers(
  deps: RecordDeps & { logger: Logger; onRecorded?: OnRecorded },
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
      connectionName: `notifications:${config.queue ?? s.queue}`,
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
