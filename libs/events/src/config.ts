import { url } from '@tracker/kit';
import { z } from 'zod';

/**
 * The broker settings a service reads from its environment, beside the code that uses
 * them: a publisher's outbox relay (outboxEnv, for relayServiceOutbox) and a consumer's
 * queue (consumerEnv, for consumeServiceSubscriptions). A service's `src/config.ts` spreads the
 * one it needs into its schema and maps it with the matching `…ConfigOf`.
 */

export const DEFAULT_AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

/** An exchange or queue name of the broker. */
const amqpName = z.string().regex(/^[A-Za-z0-9._-]{1,200}$/, 'must be 1 to 200 letters, digits, ".", "_" or "-"');

/** The outbox relay of a service that publishes events: the broker, how often it polls, the exchange. */
export const outboxEnv = {
  AMQP_URL: url(DEFAULT_AMQP_URL),
  /** How often the outbox relay looks for new rows when idle. */
  OUTBOX_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(100),
  /** How long a published outbox row is kept (for looking into a delivery) before it is pruned. */
  OUTBOX_RETENTION_HOURS: z.coerce.number().int().min(1).max(8760).default(24),
  /** The topic exchange events are published to (tests give each system its own). */
  EVENTS_EXCHANGE: amqpName.default('tracker.events'),
};

/** The `outbox` section of a service config, from the outboxEnv variables. */
export const outboxConfigOf = (env: { AMQP_URL: string; OUTBOX_POLL_MS: number; OUTBOX_RETENTION_HOURS: number; EVENTS_EXCHANGE: string }) => ({
  amqpUrl: env.AMQP_URL,
  pollIntervalMs: env.OUTBOX_POLL_MS,
  retentionHours: env.OUTBOX_RETENTION_HOURS,
  exchange: env.EVENTS_EXCHANGE,
});

/** The event consumer of a service that reads the integration events: the broker, the exchange, its queue and how it retries. */
export const consumerEnv = {
  AMQP_URL: url(DEFAULT_AMQP_URL),
  /** The topic exchange the issues and access relays publish to (their EVENTS_EXCHANGE, the same value); tests use their own. */
  EVENTS_EXCHANGE: amqpName.default('tracker.events'),
  /** Overrides the consumer's queue name (the service's src/consumers/index.ts); tests use their own. */
  EVENTS_QUEUE: amqpName.optional(),
  /** Deliveries handled at once. */
  EVENTS_PREFETCH: z.coerce.number().int().min(1).max(500).default(300),
  /** Attempts of a failing handler before its event is dead-lettered. */
  EVENTS_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(5),
  /** The wait between those attempts. */
  EVENTS_RETRY_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(1000),
};

/** The `events` section of a consumer's config, from the consumerEnv variables. */
export const consumerConfigOf = (env: {
  AMQP_URL: string;
  EVENTS_EXCHANGE: string;
  EVENTS_QUEUE?: string;
  EVENTS_PREFETCH: number;
  EVENTS_MAX_ATTEMPTS: number;
  EVENTS_RETRY_DELAY_MS: number;
}) => ({
  amqpUrl: env.AMQP_URL,
  exchange: env.EVENTS_EXCHANGE,
  queue: env.EVENTS_QUEUE,
  prefetch: env.EVENTS_PREFETCH,
  maxAttempts: env.EVENTS_MAX_ATTEMPTS,
  retryDelayMs: env.EVENTS_RETRY_DELAY_MS,
});
