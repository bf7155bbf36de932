import type { ChannelModel, ConfirmChannel, ConsumeMessage, MessagePropertyHeaders } from 'amqplib';
import type { SigningKey, TrustedKeys } from '@tracker/signing';
import {
  closeQuietly,
  deadLetterExchangeOf,
  errorMessage,
  openConnection,
  reconnectDelay,
  Waker,
  type EventsLogger,
  type ReconnectOptions,
} from './broker';
import { EVENTS_EXCHANGE, parseEvent, type EventEnvelope } from './events';
import { checkEventProof, EVENT_SIGNATURE_HEADER, EVENT_TAG_HEADER, type SignatureRefusal } from './signature';
import type { ConsumerMetrics } from './metrics';

export interface DeliveryMeta {
  /** 1 on the first try, up to maxAttempts. */
  attempt: number;
  /** The broker redelivers a message whose ack was lost (connection cut, consumer killed). */
  redelivered: boolean;
  /** The routing key the event was published with, e.g. `tracker.issue.updated`. */
  routingKey: string;
  messageId: string | undefined;
  requestId: string | undefined;
}

/**
 * Called once per delivery. Delivery is at least once: the same event (same event_id) can
 * arrive twice, and events of one aggregate can arrive out of order (retries, several
 * relays). The handler must be idempotent and order tolerant, e.g. apply an event only when
 * its aggregate.revision is newer than the one stored.
 */
export type EventHandler = (event: EventEnvelope, meta: DeliveryMeta) => Promise<void>;

/**
 * Thrown by a handler for an event it must never apply, whatever the attempt (e.g. it
 * contradicts what the consumer holds): the message is dead-lettered at once, with one
 * `warn` line and the outcome reason `refused`, instead of being retried.
 */
export class EventRefused extends Error {
  readonly refused = true;
  constructor(
    message: string,
    /** Logged with the warning. */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'EventRefused';
  }
}

const isRefusal = (error: unknown): error is EventRefused => error instanceof EventRefused || (error as { refused?: unknown } | null)?.refused === true;

/** Default bound of a dead-letter queue: messages (`x-max-length`) and bytes (`x-max-length-bytes`). */
export const DEAD_LETTER_MAX_LENGTH = 10_000;
export const DEAD_LETTER_MAX_BYTES = 256 * 1024 * 1024;

export interface ConsumerOptions {
  amqpUrl: string;
  /** Durable queue of the consuming service, e.g. `statistics.events`. */
  queue: string;
  /** Topic patterns bound on the exchange, e.g. `tracker.issue.*` or `tracker.#`. */
  bindings: string[];
  handler: EventHandler;
  /**
   * Public keys of the publishers (`config.internal.trusted`). A message is handed to the
   * handler only if it carries a proof of the event type's source (`eventSourceOf`) over
   * its exact body, a tag or a signature; anything else is dead-lettered at once
   * (signature.ts).
   */
  trusted: TrustedKeys;
  /** The consuming part's own key (`config.internal.key`): tags are checked under the keys it shares with each source. */
  key: SigningKey;
  logger: EventsLogger;
  /** Unacked deliveries handled at once. Default 50, at most 1000. */
  prefetch?: number;
  /** Handler calls per message before it is dead-lettered. Default 5. */
  maxAttempts?: number;
  /** Pause before a failed message is handed to the handler again. Default 1000 ms. */
  retryDelayMs?: number;
  /** Default `tracker.events`; tests pass their own (the dead-letter exchange is `<exchange>.dlx`). */
  exchange?: string;
  /**
   * Bound of the dead-letter queue `<queue>.dlq`: at most this many messages (default
   * 10,000) and bytes (default 256 MiB); past either, the oldest dead letters are dropped
   * (`x-overflow: drop-head`). Queue arguments are fixed when the queue is created: a
   * consumer declaring other values than the existing queue has fails (see the README).
   */
  deadLetterMaxLength?: number;
  deadLetterMaxBytes?: number;
  reconnect?: ReconnectOptions;
  connectionName?: string;
  /** Told how each delivery ended (metrics). */
  onOutcome?: (outcome: DeliveryOutcome) => void;
}

export interface DeliveryOutcome {
  queue: string;
  /** acked: applied; retried: sent to the retry queue; dead_lettered: given up (see reason). */
  outcome: 'acked' | 'retried' | 'dead_lettered';
  /**
   * Why it was dead-lettered: `poison` (not an event), `unsigned` / `bad_signature` /
   * `wrong_source` (not signed by the event type's publisher), `refused` (the handler threw
   * EventRefused), `handler_failed` (every attempt failed).
   */
  reason?: 'poison' | SignatureRefusal | 'refused' | 'handler_failed';
  /** Seen before: redelivered by the broker or back from the retry queue. */
  redelivered: boolean;
}

export interface Consumer {
  /** Stops taking deliveries, waits for the handlers in flight, then closes the channel and connection. */
  stop(): Promise<void>;
  /** Resolves once the queues are declared and bound and the consumer is registered. */
  ready(): Promise<void>;
  /** Messages waiting in the queue (ready, not yet delivered) and in its dead-letter queue; throws while disconnected. */
  depth(): Promise<{ waiting: number; dead: number }>;
}

/**
 * Names of the queues a consumer declares for `queue`. `dead` is the bounded dead-letter
 * queue; `legacyDead` the unbounded one of earlier versions, which a consumer unbinds
 * (and deletes once empty) when it connects: a queue's arguments cannot be changed.
 */
export function consumerQueues(queue: string, exchange = EVENTS_EXCHANGE) {
  return { queue, dead: `${queue}.dlq`, legacyDead: `${queue}.dead`, retry: `${queue}.retry`, deadLetterExchange: deadLetterExchangeOf(exchange) };
}

const ATTEMPTS_HEADER = 'x-attempts';
const ROUTING_KEY_HEADER = 'x-original-routing-key';

/**
 * Consumes integration events from a durable queue bound to the events exchange, with
 * manual acks:
 * - a message that is not a valid event (bad JSON, fails parseEvent) is rejected without
 *   requeue at once, so the broker dead-letters it to `<queue>.dlq`;
 * - so is a valid event not signed by its publisher (see signature.ts), and one the
 *   handler refuses (EventRefused);
 * - a handler error sends a copy to `<queue>.retry`, where it waits retryDelayMs and is
 *   dead-lettered back into the queue with `x-attempts` incremented; the original is acked
 *   only after the broker confirmed the copy. After maxAttempts failures it is rejected to
 *   `<queue>.dlq` (bounded: deadLetterMaxLength, deadLetterMaxBytes, oldest dropped).
 * The consumer reconnects by itself after a broker restart or a lost connection.
 */
export function startConsumer(options: ConsumerOptions): Consumer {
  const { amqpUrl, handler, logger } = options;
  const exchange = options.exchange ?? EVENTS_EXCHANGE;
  const names = consumerQueues(options.queue, exchange);
  const prefetch = options.prefetch ?? 50;
  const maxAttempts = options.maxAttempts ?? 5;
  const retryDelayMs = options.retryDelayMs ?? 1000;
  const deadLetterMaxLength = options.deadLetterMaxLength ?? DEAD_LETTER_MAX_LENGTH;
  const deadLetterMaxBytes = options.deadLetterMaxBytes ?? DEAD_LETTER_MAX_BYTES;
  const connectionName = options.connectionName ?? `consumer:${names.queue}`;
  if (!Number.isInteger(prefetch) || prefetch < 1 || prefetch > 1000) throw new Error(`prefetch must be an integer from 1 to 1000, got ${prefetch}`);
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new Error(`maxAttempts must be a positive integer, got ${maxAttempts}`);
  if (options.bindings.length === 0) throw new Error('a consumer needs at least one binding');
  if (!Number.isInteger(deadLetterMaxLength) || deadLetterMaxLength < 1) throw new Error(`deadLetterMaxLength must be a positive integer, got ${deadLetterMaxLength}`);
  if (!Number.isInteger(deadLetterMaxBytes) || deadLetterMaxBytes < 1) throw new Error(`deadLetterMaxBytes must be a positive integer, got ${deadLetterMaxBytes}`);
  if (!options.trusted || !options.key) throw new Error('a consumer needs its own key and the trusted keys of the publishers');
  const log = { queue: names.queue, exchange };

  let connection: ChannelModel | null = null;
  let channel: ConfirmChannel | null = null;
  let consumerTag: string | null = null;
  let stopping = false;
  let stopped: Promise<void> | null = null;
  let everConnected = false;
  let legacyReported = false;
  const waker = new Waker();
  const inFlight = new Set<Promise<void>>();
  const readyWaiters: { resolve: () => void; reject: (error: Error) => void }[] = [];
  let stopSession: () => void = () => undefined;

  /** Opens a connection and consumes until it is lost; resolves then (or on stop). */
  async function session(): Promise<void> {
    let endSession!: (reason: Error | undefined) => void;
    const ended = new Promise<Error | undefined>((resolve) => (endSession = resolve));
    stopSession = () => endSession(undefined);
    const conn = await openConnection(amqpUrl, connectionName, (error) => endSession(error ?? new Error('connection closed')));
    connection = conn;
    let ch: ConfirmChannel;
    try {
      ch = await conn.createConfirmChannel();
      ch.on('error', (error) => endSession(error));
      ch.on('close', () => endSession(new Error('channel closed')));
      await ch.assertExchange(exchange, 'topic', { durable: true });
      await ch.assertExchange(names.deadLetterExchange, 'direct', { durable: true });
      await assertDeadLetterQueue(ch);
      await ch.bindQueue(names.dead, names.deadLetterExchange, names.queue);
      await ch.assertQueue(names.queue, { durable: true, deadLetterExchange: names.deadLetterExchange, deadLetterRoutingKey: names.queue });
      // Messages wait here for their per-message expiration, then return to the queue.
      await ch.assertQueue(names.retry, { durable: true, deadLetterExchange: '', deadLetterRoutingKey: names.queue });
      for (const pattern of options.bindings) await ch.bindQueue(names.queue, exchange, pattern);
      await ch.prefetch(prefetch);
      const consumeCh = ch;
      const { consumerTag: tag } = await ch.consume(names.queue, (msg) => dispatch(consumeCh, msg, endSession), { noAck: false });
      channel = ch;
      consumerTag = tag;
    } catch (error) {
      await closeQuietly(conn);
      throw error;
    }
    logger.info(log, everConnected ? 'consumer reconnected to the broker' : 'consumer connected to the broker');
    everConnected = true;
    await retireLegacyDeadQueue(conn);
    for (const waiter of readyWaiters.splice(0)) waiter.resolve();

    const reason = await ended;
    channel = null;
    consumerTag = null;
    if (!stopping) {
      logger.warn({ ...log, err: reason }, 'consumer lost the broker connection; reconnecting');
      connection = null;
      await closeQuietly(ch);
      await closeQuietly(conn);
    }
  }

  /** Declares the bounded dead-letter queue; one that exists with other arguments is a configuration error, said plainly. */
  async function assertDeadLetterQueue(ch: ConfirmChannel): Promise<void> {
    const args = { 'x-max-length': deadLetterMaxLength, 'x-max-length-bytes': deadLetterMaxBytes, 'x-overflow': 'drop-head' };
    try {
      await ch.assertQueue(names.dead, { durable: true, arguments: args });
    } catch (error) {
      if (!/PRECONDITION.FAILED/.test(errorMessage(error))) throw error;
      const problem = new Error(
        `dead-letter queue ${names.dead} exists with other arguments than ${JSON.stringify(args)}: ` +
          `move its messages elsewhere and delete it, or configure the same bound (${errorMessage(error)})`,
      );
      logger.error({ ...log, err: problem }, 'consumer cannot declare its dead-letter queue');
      throw problem;
    }
  }

  /**
   * Upgrade from the unbounded `<queue>.dead` of earlier versions: on every connect it is
   * unbound from the dead-letter exchange (so it gets no more dead letters, even if a
   * consumer of the old version bound it again meanwhile) and deleted once empty; one still
   * holding messages is kept for an operator, with one warning. On a side channel: a
   * missing queue closes it (404), which must not end the session.
   */
  async function retireLegacyDeadQueue(conn: ChannelModel): Promise<void> {
    let side: Awaited<ReturnType<ChannelModel['createChannel']>> | null = null;
    try {
      side = await conn.createChannel();
      side.on('error', () => undefined); // a missing queue closes this side channel (404): nothing to retire
      const { messageCount } = await side.checkQueue(names.legacyDead);
      await side.unbindQueue(names.legacyDead, names.deadLetterExchange, names.queue);
      if (messageCount === 0) {
        await side.deleteQueue(names.legacyDead, { ifEmpty: true });
        logger.info({ ...log, legacyQueue: names.legacyDead }, 'deleted the empty unbounded dead-letter queue of an earlier version');
      } else if (!legacyReported) {
        legacyReported = true;
        logger.warn(
          { ...log, legacyQueue: names.legacyDead, messages: messageCount, dead: names.dead },
          'the unbounded dead-letter queue of an earlier version still holds messages; it gets no new ones: inspect them, then delete it',
        );
      }
    } catch {
      // Gone (404), not empty any more, or the connection is going: nothing to do now.
    } finally {
      await closeQuietly(side);
    }
  }

  function dispatch(ch: ConfirmChannel, msg: ConsumeMessage | null, endSession: (reason: Error) => void): void {
    if (msg === null) {
      // The broker cancelled the consumer (queue deleted): start over, which re-declares it.
      endSession(new Error('consumer cancelled by the broker'));
      return;
    }
    if (stopping) {
      settle(() => ch.nack(msg, false, true));
      return;
    }
    const work = handle(ch, msg).catch((error) => logger.error({ ...log, err: error }, 'consumer failed to settle a message'));
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  }

  async function handle(ch: ConfirmChannel, msg: ConsumeMessage): Promise<void> {
    const headers = msg.properties.headers ?? {};
    const failedBefore = Number(headers[ATTEMPTS_HEADER] ?? 0) || 0;
    const routingKey = typeof headers[ROUTING_KEY_HEADER] === 'string' ? (headers[ROUTING_KEY_HEADER] as string) : msg.fields.routingKey;
    const requestId = typeof headers['x-request-id'] === 'string' ? (headers['x-request-id'] as string) : undefined;
    const about = { ...log, routingKey, messageId: msg.properties.messageId as string | undefined, rid: requestId };
    const redelivered = msg.fields.redelivered || failedBefore > 0;
    const report = (outcome: DeliveryOutcome['outcome'], reason?: DeliveryOutcome['reason']) =>
      options.onOutcome?.({ queue: names.queue, outcome, reason, redelivered });

    let event: EventEnvelope;
    try {
      event = parseEvent(JSON.parse(msg.content.toString('utf8')));
    } catch (error) {
      logger.error({ ...about, err: summarize(error) }, 'poison message: not a valid event; dead-lettered');
      settle(() => ch.nack(msg, false, false));
      report('dead_lettered', 'poison');
      return;
    }

    // Only the event type's publisher may have sent it (signature.ts): never retried, never handled.
    const signature = checkEventProof({ signature: headers[EVENT_SIGNATURE_HEADER], tag: headers[EVENT_TAG_HEADER] }, event, msg.content, options);
    if (!signature.ok) {
      logger.warn(
        { ...about, eventId: event.event_id, type: event.type, reason: signature.reason, expectedSigner: signature.expected, claimedSigner: signature.claimed },
        `event refused: ${SIGNATURE_MESSAGES[signature.reason]}; dead-lettered`,
      );
      settle(() => ch.nack(msg, false, false));
      report('dead_lettered', signature.reason);
      return;
    }

    const attempt = failedBefore + 1;
    const meta: DeliveryMeta = {
      attempt,
      redelivered: msg.fields.redelivered,
      routingKey,
      messageId: msg.properties.messageId as string | undefined,
      requestId,
    };
    try {
      await handler(event, meta);
    } catch (error) {
      if (isRefusal(error)) {
        logger.warn({ ...about, eventId: event.event_id, type: event.type, attempt, ...error.details, refusal: error.message }, 'event refused by the handler; dead-lettered');
        settle(() => ch.nack(msg, false, false));
        report('dead_lettered', 'refused');
        return;
      }
      const details = { ...about, eventId: event.event_id, type: event.type, attempt, maxAttempts, err: error };
      if (attempt >= maxAttempts) {
        logger.error(details, 'event handler failed on every attempt; dead-lettered');
        settle(() => ch.nack(msg, false, false));
        report('dead_lettered', 'handler_failed');
        return;
      }
      logger.warn({ ...details, retryInMs: retryDelayMs }, 'event handler failed; will retry');
      await retryLater(ch, msg, attempt, routingKey);
      report('retried');
      return;
    }
    settle(() => ch.ack(msg));
    report('acked');
  }

  async function retryLater(ch: ConfirmChannel, msg: ConsumeMessage, failed: number, routingKey: string): Promise<void> {
    const headers: MessagePropertyHeaders = {};
    for (const [key, value] of Object.entries(msg.properties.headers ?? {})) {
      if (!key.startsWith('x-death') && !key.startsWith('x-first-death') && !key.startsWith('x-last-death')) headers[key] = value;
    }
    headers[ATTEMPTS_HEADER] = failed;
    headers[ROUTING_KEY_HEADER] = routingKey;
    try {
      await new Promise<void>((resolve, reject) => {
        ch.sendToQueue(
          names.retry,
          msg.content,
          {
            persistent: true,
            expiration: String(retryDelayMs),
            contentType: msg.properties.contentType,
            messageId: msg.properties.messageId,
            type: msg.properties.type,
            timestamp: msg.properties.timestamp,
            headers,
          },
          (err: unknown) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve()),
        );
      });
    } catch (error) {
      // The copy may not exist: leave the original unacked, so it is redelivered. If the
      // channel is still open, give it back after the same pause rather than at once.
      logger.warn({ ...log, err: error }, 'could not schedule a retry; returning the message to the queue');
      await waker.sleep(stopping ? 0 : retryDelayMs);
      settle(() => ch.nack(msg, false, true));
      return;
    }
    settle(() => ch.ack(msg));
  }

  /** An ack on a channel that died throws; the broker redelivers the message then. */
  function settle(action: () => void): void {
    try {
      action();
    } catch (error) {
      logger.debug({ ...log, err: error }, 'could not settle a message (channel closed); the broker redelivers it');
    }
  }

  const loop = (async () => {
    let attempt = 0;
    while (!stopping) {
      try {
        await session();
        attempt = 0;
        // A connection that is accepted and dropped at once must not make a hot loop.
        if (!stopping) await waker.sleep(reconnectDelay(1, options.reconnect));
      } catch (error) {
        attempt += 1;
        connection = null;
        // The loss itself was logged once; retries are debug, with a reminder every 30.
        if (attempt === 1 && !everConnected) {
          logger.warn({ ...log, err: error }, 'consumer cannot reach the broker yet; retrying with backoff');
        } else if (attempt % 30 === 0) {
          logger.warn({ ...log, err: error, attempt }, 'consumer still cannot reach the broker; retrying');
        } else {
          logger.debug({ ...log, err: error, attempt }, 'consumer reconnect attempt failed');
        }
        if (!stopping) await waker.sleep(reconnectDelay(attempt, options.reconnect));
      }
    }
  })();

  return {
    depth: async () => {
      const ch = channel;
      if (!ch) throw new Error('consumer is not connected');
      const [queue, dead] = await Promise.all([ch.checkQueue(names.queue), ch.checkQueue(names.dead)]);
      return { waiting: queue.messageCount, dead: dead.messageCount };
    },
    ready: () =>
      new Promise<void>((resolve, reject) => {
        if (stopping) reject(new Error('consumer is stopped'));
        else if (channel) resolve();
        else readyWaiters.push({ resolve, reject });
      }),
    stop: () => {
      stopped ??= (async () => {
        stopping = true;
        const [ch, tag] = [channel, consumerTag];
        if (ch && tag) await ch.cancel(tag).catch(() => undefined);
        await Promise.allSettled([...inFlight]);
        stopSession();
        waker.wakeUp();
        await loop;
        const conn = connection;
        channel = null;
        connection = null;
        await closeQuietly(ch);
        await closeQuietly(conn);
        for (const waiter of readyWaiters.splice(0)) waiter.reject(new Error('consumer is stopped'));
        logger.info(log, 'consumer stopped');
      })();
      return stopped;
    },
  };
}

const SIGNATURE_MESSAGES: Record<SignatureRefusal, string> = {
  unsigned: 'not signed',
  bad_signature: 'signature invalid for this message',
  wrong_source: 'signed by a component that does not publish this event type',
};

/** A zod error lists every issue; one line of log needs the first few. */
function summarize(error: unknown): string {
  const message = errorMessage(error);
  return message.length > 500 ? `${message.slice(0, 500)}…` : message;
}

/** One queue a service consumes: its name, the routing keys bound to it, and what handles each event. */
export interface Subscription {
  queue: string;
  bindings: string[];
  handler: EventHandler;
}

/** What a consuming service's config gives its subscriptions: its `events` section (consumerConfigOf, libs/events/src/config.ts) and its keys. */
export interface ConsumerServiceConfig {
  events: {
    amqpUrl: string;
    exchange: string;
    /** Replaces the queue name (tests, and each system of the end-to-end tests, have their own). */
    queue?: string;
    prefetch: number;
    maxAttempts: number;
    retryDelayMs: number;
  };
  /**
   * `trusted`: the publishers' public keys, so only events proved by their publisher (signed
   * or tagged) are handled; `key`: this service's own, under which the tags it shares with
   * each publisher are checked.
   */
  internal: { key: SigningKey; trusted: TrustedKeys };
}

export interface StartedSubscriptions {
  ready: () => Promise<void>;
  /** Stops every consumer, waiting for the handlers in flight. */
  stop: () => Promise<void>;
}

/**
 * The subscriptions a consuming service (statistics, notifications) runs beside its API,
 * from its config: one consumer per subscription (its connection named
 * `<service>:<queue>`); only events proved by their publisher reach the handlers (its
 * trusted keys, and its own key for the tags), and its consumer metrics count each
 * delivery's outcome and watch each queue's depth.
 */
export function consumeServiceSubscriptions(
  service: string,
  subscriptions: Subscription[],
  config: ConsumerServiceConfig,
  metrics: ConsumerMetrics,
  logger: EventsLogger,
): StartedSubscriptions {
  const { events, internal } = config;
  const queueOf = (s: Subscription) => events.queue ?? s.queue;
  const consumers = subscriptions.map((s) =>
    startConsumer({
      amqpUrl: events.amqpUrl,
      exchange: events.exchange,
      queue: queueOf(s),
      bindings: s.bindings,
      handler: s.handler,
      trusted: internal.trusted,
      key: internal.key,
      logger,
      prefetch: events.prefetch,
      maxAttempts: events.maxAttempts,
      retryDelayMs: events.retryDelayMs,
      connectionName: `${service}:${queueOf(s)}`,
      onOutcome: metrics.onOutcome,
    }),
  );
  metrics.watch(consumers.map((c, i) => ({ queue: queueOf(subscriptions[i]!), depth: () => c.depth() })));
  return {
    ready: async () => {
      await Promise.all(consumers.map((c) => c.ready()));
    },
    stop: async () => {
      await Promise.all(consumers.map((c) => c.stop()));
    },
  };
}
