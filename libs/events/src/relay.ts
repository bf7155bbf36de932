import { createHash } from 'node:crypto';
import type { ChannelModel, ConfirmChannel, Options } from 'amqplib';
import { Pool as PgPool, type Pool } from 'pg';
import type { Metrics } from '@tracker/kit';
import type { SigningKey, TrustedKeys } from '@tracker/signing';
import { closeQuietly, errorMessage, openConnection, reconnectDelay, Waker, type EventsLogger, type ReconnectOptions } from './broker';
import { EVENT_TYPES, EVENTS_EXCHANGE, eventSourceOf, type EventType } from './events';
import { outboxMetrics } from './metrics';
import { outboxTable } from './outbox';
import { keepPublishedOutboxPruned } from './prune';
import { eventTagKeys, signedEventHeaders, taggedEventHeaders } from './signature';

export interface OutboxRelayOptions {
  pool: Pool;
  /** The publishing service's Postgres schema, where its outbox_events table lives. */
  schema: string;
  amqpUrl: string;
  /**
   * The publishing service's key (`config.internal.key`): every message is signed with it
   * at relay time (signature.ts). Only rows of the event types this component publishes
   * (`eventSourceOf`) are selected: any other row is left alone (a newer replica may know
   * its type), so it can never hold the relay up; the backlog metric still counts it.
   */
  key: SigningKey;
  /**
   * Whom the publisher believes (`config.internal.trusted`). Given, every message is
   * tagged for the event consumers under the keys the publisher shares with them instead
   * of signed with `key`: 2 µs to make and to check against 30 and 85 (signature.ts).
   */
  trusted?: TrustedKeys;
  logger: EventsLogger;
  /** Rows per transaction. Default 100. */
  batchSize?: number;
  /** Pause between rounds when the outbox is drained. Default 500 ms. */
  pollIntervalMs?: number;
  /** Default `tracker.events`; tests pass their own. */
  exchange?: string;
  /** How long to wait for the broker's confirms of one batch before counting them as failed. Default 10 s. */
  confirmTimeoutMs?: number;
  reconnect?: ReconnectOptions;
  /** Shown as the connection name in the broker's management UI. */
  connectionName?: string;
  /** Told the outcome of every batch (metrics). */
  onBatch?: (result: { published: number; failed: number }) => void;
}

export interface OutboxRelay {
  /** Finishes the batch in flight, then closes the channel and the connection. */
  stop(): Promise<void>;
  /** Relays one batch now (between the loop's rounds) and returns how many rows the broker confirmed. */
  drainOnce(): Promise<number>;
}

interface PendingRow {
  id: string;
  event_id: string;
  type: string;
  routing_key: string;
  payload: { event_id?: string; type?: string; occurred_at?: string; request_id?: string | null } & Record<string, unknown>;
  created_at: Date;
}

type Outcome = { id: string; ok: true } | { id: string; ok: false; error: string };

/**
 * Publishes unpublished outbox rows to the events exchange and marks them sent only once
 * the broker confirmed them. Rows are claimed with FOR UPDATE SKIP LOCKED inside one
 * transaction per batch, so several replicas relay the same table without publishing a
 * row twice, and a row of a transaction that commits late is picked up whenever it
 * becomes visible (no "id greater than the last seen" cursor).
 *
 * Delivery is at least once: if the confirm arrives but the commit does not (database
 * lost mid-batch), the row is published again next round.
 */
export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { pool, amqpUrl, logger, key } = options;
  const table = outboxTable(options.schema);
  // The relay's statements are named (parsed and planned once per connection), per table:
  // a pool may serve several schemas' relays, and Postgres cuts names at 63 bytes.
  const tableId = createHash('sha256').update(table).digest('base64url').slice(0, 16);
  const statements = { pending: `outbox.pending.${tableId}`, published: `outbox.published.${tableId}` };
  const ownTypes = EVENT_TYPES.filter((type) => eventSourceOf[type] === options.key.signer);
  const exchange = options.exchange ?? EVENTS_EXCHANGE;
  const batchSize = options.batchSize ?? 100;
  const pollIntervalMs = options.pollIntervalMs ?? 500;
  const confirmTimeoutMs = options.confirmTimeoutMs ?? 10_000;
  const connectionName = options.connectionName ?? `outbox-relay:${options.schema}`;
  const log = { schema: options.schema, exchange };
  // A configuration it cannot tag under stops the relay here, not at every message.
  if (options.trusted) eventTagKeys({ key, trusted: options.trusted });

  let connection: ChannelModel | null = null;
  let channel: ConfirmChannel | null = null;
  const broker: { state: 'starting' | 'up' | 'down' } = { state: 'starting' };
  let stopping = false;
  let stopped: Promise<void> | null = null;
  const waker = new Waker();

  // drainOnce and the loop share one channel; a confirm channel's batches must not interleave.
  let lock: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = lock.then(fn, fn);
    lock = run.catch(() => undefined);
    return run;
  };

  async function ensureChannel(): Promise<ConfirmChannel> {
    if (channel) return channel;
    if (!connection) {
      const opened: ChannelModel = await openConnection(amqpUrl, connectionName, (error) => {
        if (connection !== opened) return;
        connection = null;
        channel = null;
        if (!stopping && broker.state === 'up') {
          broker.state = 'down';
          logger.warn({ ...log, err: error }, 'outbox relay lost the broker connection; reconnecting');
        }
      });
      opened.on('blocked', (reason) => logger.warn({ ...log, reason }, 'broker blocked the outbox relay connection (resource alarm)'));
      opened.on('unblocked', () => logger.info(log, 'broker unblocked the outbox relay connection'));
      connection = opened;
    }
    const created = await connection.createConfirmChannel();
    // The failed operation reports the error to the loop, which logs it once.
    created.on('error', (error) => logger.debug({ ...log, err: error }, 'outbox relay channel closed by the broker'));
    created.on('close', () => {
      if (channel === created) channel = null;
    });
    await created.assertExchange(exchange, 'topic', { durable: true });
    channel = created;
    if (broker.state !== 'up') {
      logger.info(log, broker.state === 'starting' ? 'outbox relay connected to the broker' : 'outbox relay reconnected to the broker');
      broker.state = 'up';
    }
    return created;
  }

  async function relayBatch(): Promise<{ selected: number; published: number; failed: number }> {
    const ch = await ensureChannel();
    const client = await pool.connect();
    let clientBroken: Error | undefined;
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<PendingRow>({
        name: statements.pending,
        text: `SELECT id, event_id, type, routing_key, payload, created_at FROM ${table}
          WHERE published_at IS NULL AND type = ANY($2::text[]) ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
        values: [batchSize, ownTypes],
      });
      if (rows.length === 0) {
        await client.query('COMMIT');
        return { selected: 0, published: 0, failed: 0 };
      }
      const outcomes = await publishBatch(ch, rows);
      const confirmed = outcomes.filter((o) => o.ok).map((o) => o.id);
      const failed = outcomes.filter((o): o is Extract<Outcome, { ok: false }> => !o.ok);
      if (confirmed.length > 0) {
        await client.query({ name: statements.published, text: `UPDATE ${table} SET published_at = now(), attempts = attempts + 1 WHERE id = ANY($1::bigint[])`, values: [confirmed] });
      }
      if (failed.length > 0) {
        await client.query(
          `UPDATE ${table} AS o SET attempts = o.attempts + 1, last_error = f.error
             FROM unnest($1::bigint[], $2::text[]) AS f(id, error) WHERE o.id = f.id`,
          [failed.map((f) => f.id), failed.map((f) => f.error)],
        );
        logger.warn({ ...log, failed: failed.length, error: failed[0].error }, 'broker did not confirm some outbox events; they stay unpublished and are retried');
      }
      await client.query('COMMIT');
      options.onBatch?.({ published: confirmed.length, failed: failed.length });
      return { selected: rows.length, published: confirmed.length, failed: failed.length };
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => (clientBroken = rollbackError));
      throw error;
    } finally {
      client.release(clientBroken);
    }
  }

  async function publishBatch(ch: ConfirmChannel, rows: PendingRow[]): Promise<Outcome[]> {
    // One deadline for the whole batch: a broker that blocks publishers (resource alarm)
    // stops both the write buffer from draining and the confirms from coming.
    const deadline = Date.now() + confirmTimeoutMs;
    const pending = new Map<string, (outcome: Outcome) => void>();
    const confirmations: Promise<Outcome>[] = [];
    let stuck = false;
    for (const row of rows) {
      let settle!: (outcome: Outcome) => void;
      const confirmation = new Promise<Outcome>((resolve) => (settle = resolve));
      confirmations.push(confirmation);
      pending.set(row.id, settle);
      void confirmation.then(() => pending.delete(row.id));
      if (stuck) {
        settle({ id: row.id, ok: false, error: `not sent: the channel did not drain within ${confirmTimeoutMs} ms` });
        continue;
      }
      const notOurs = foreignRow(row);
      if (notOurs) {
        settle({ id: row.id, ok: false, error: notOurs });
        continue;
      }
      try {
        // The signature covers these exact bytes: the body is serialized once, hashed and sent.
        const content = Buffer.from(JSON.stringify(row.payload));
        const writable = ch.publish(exchange, row.routing_key, content, publishOptions(row, content), (err: unknown) =>
          settle(err ? { id: row.id, ok: false, error: `broker nack: ${errorMessage(err)}` } : { id: row.id, ok: true }),
        );
        if (!writable) stuck = (await drained(ch, deadline - Date.now())) === 'timeout';
      } catch (error) {
        // A closed channel throws here; every later row of the batch fails the same way.
        settle({ id: row.id, ok: false, error: `publish failed: ${errorMessage(error)}` });
      }
    }
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()))));
    const all = Promise.all(confirmations);
    const finished = await Promise.race([all.then(() => true), timedOut.then(() => false)]);
    clearTimeout(timer);
    if (!finished) {
      for (const [id, settle] of pending) settle({ id, ok: false, error: `no broker confirm within ${confirmTimeoutMs} ms` });
      // A late confirm must not be mistaken for one of the next batch: start on a fresh channel.
      if (channel === ch) channel = null;
      void closeQuietly(ch);
    }
    return all;
  }

  /** Why this service must not publish the row (an event type of another component), or null. */
  function foreignRow(row: PendingRow): string | null {
    const type = row.payload.type;
    const source = typeof type === 'string' && Object.hasOwn(eventSourceOf, type) ? eventSourceOf[type as EventType] : undefined;
    if (source === key.signer) return null;
    return source
      ? `not sent: ${type} events are published by ${source}, not by ${key.signer}`
      : `not sent: the payload's type ${JSON.stringify(type)} is not an event type`;
  }

  function publishOptions(row: PendingRow, content: Buffer): Options.Publish {
    const occurredAt = Date.parse(row.payload.occurred_at ?? '');
    const requestId = row.payload.request_id;
    // Proved with what the body says (not the row's columns): the consumer compares with the body.
    const event = { event_id: String(row.payload.event_id), type: String(row.payload.type) };
    const proof = options.trusted ? taggedEventHeaders({ key, trusted: options.trusted }, event, content) : signedEventHeaders(key, event, content);
    return {
      persistent: true,
      contentType: 'application/json',
      messageId: row.event_id,
      type: row.type,
      timestamp: Math.floor((Number.isFinite(occurredAt) ? occurredAt : row.created_at.getTime()) / 1000),
      headers: requestId ? { 'x-request-id': requestId, ...proof } : proof,
    };
  }

  const loop = (async () => {
    let failedRounds = 0;
    let lastReported: string | null = null;
    while (!stopping) {
      let again = false;
      try {
        const result = await exclusive(relayBatch);
        if (lastReported !== null) logger.info(log, 'outbox relay is relaying again');
        lastReported = null;
        // A batch with unconfirmed rows is retried after a pause, not in a hot loop.
        failedRounds = result.failed > 0 ? failedRounds + 1 : 0;
        if (result.failed > 0) {
          await waker.sleep(reconnectDelay(failedRounds, options.reconnect));
          continue;
        }
        again = result.selected >= batchSize;
      } catch (error) {
        failedRounds += 1;
        const message = errorMessage(error);
        // One line per state change: a lost connection was logged by its close handler.
        if (broker.state === 'up' && message !== lastReported) {
          logger.warn({ ...log, err: error }, 'outbox relay round failed; retrying with backoff');
          lastReported = message;
        } else if (broker.state === 'starting' && failedRounds === 1) {
          logger.warn({ ...log, err: error }, 'outbox relay cannot reach the broker yet; retrying with backoff');
        } else if (failedRounds % 30 === 0) {
          logger.warn({ ...log, err: error, attempt: failedRounds }, 'outbox relay still failing; retrying');
        } else {
          logger.debug({ ...log, err: error, attempt: failedRounds }, 'outbox relay retry failed');
        }
        if (!stopping) await waker.sleep(reconnectDelay(failedRounds, options.reconnect));
        continue;
      }
      if (!again && !stopping) await waker.sleep(pollIntervalMs);
    }
  })();

  return {
    drainOnce: async () => {
      if (stopping) throw new Error('outbox relay is stopped');
      return (await exclusive(relayBatch)).published;
    },
    stop: () => {
      stopped ??= (async () => {
        stopping = true;
        waker.wakeUp();
        await loop;
        await lock;
        const [ch, conn] = [channel, connection];
        channel = null;
        connection = null;
        await closeQuietly(ch);
        await closeQuietly(conn);
        logger.info(log, 'outbox relay stopped');
      })();
      return stopped;
    },
  };
}

/** Waits until the channel's write buffer drained, the channel closed, or the time is up. */
function drained(ch: ConfirmChannel, timeoutMs: number): Promise<'drained' | 'closed' | 'timeout'> {
  return new Promise((resolve) => {
    const finish = (how: 'drained' | 'closed' | 'timeout') => () => {
      clearTimeout(timer);
      ch.off('drain', onDrain);
      ch.off('close', onClose);
      resolve(how);
    };
    const onDrain = finish('drained');
    const onClose = finish('closed');
    const timer = setTimeout(finish('timeout'), Math.max(0, timeoutMs));
    ch.on('drain', onDrain);
    ch.on('close', onClose);
  });
}

export interface OutboxBacklog {
  /** Rows not yet confirmed by the broker. */
  count: number;
  /** Age of the oldest of them; 0 when there are none. */
  oldestAgeSeconds: number;
}

export async function outboxBacklog(pool: Pick<Pool, 'query'>, schema: string): Promise<OutboxBacklog> {
  const { rows } = await pool.query<{ count: string; oldest: number | null }>(
    `SELECT count(*) AS count, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS oldest
       FROM ${outboxTable(schema)} WHERE published_at IS NULL`,
  );
  return { count: Number(rows[0].count), oldestAgeSeconds: Math.max(0, rows[0].oldest ?? 0) };
}

/**
 * The relay as a service runs it: its own small pool (the outbox work never waits
 * behind request traffic for a connection), stopped together with the relay.
 */
export function startServiceRelay(options: {
  databaseUrl: string;
  schema: string;
  amqpUrl: string;
  /** The service's signing key (`config.internal.key`). */
  key: SigningKey;
  /** Given, messages are tagged for the consumers rather than signed (OutboxRelayOptions.trusted). */
  trusted?: TrustedKeys;
  logger: EventsLogger;
  pollIntervalMs: number;
  /** Published rows older than this are pruned (prune.ts). */
  retentionHours: number;
  exchange?: string;
  onBatch?: OutboxRelayOptions['onBatch'];
}): { stop: () => Promise<void>; backlog: () => Promise<OutboxBacklog> } {
  const url = new URL(options.databaseUrl);
  url.searchParams.delete('schema');
  const pool = new PgPool({ connectionString: url.toString(), max: 2 });
  pool.on('error', (err) => options.logger.warn({ err: err.message }, 'outbox relay database connection lost'));
  const relay = startOutboxRelay({ ...options, pool });
  const pruning = keepPublishedOutboxPruned(pool, options.schema, options.logger, { retentionHours: options.retentionHours });
  return {
    stop: async () => {
      await pruning.stop();
      await relay.stop();
      await pool.end();
    },
    backlog: () => outboxBacklog(pool, options.schema),
  };
}

/** What relayServiceOutbox reads from a service's config (kit's databaseConfigOf, config.ts outboxConfigOf, the internal key). */
export interface OutboxServiceConfig {
  database: { url: string; schema: string };
  outbox: { amqpUrl: string; pollIntervalMs: number; retentionHours: number; exchange?: string };
  internal: { key: SigningKey; trusted: TrustedKeys; tagTickets: boolean };
}

/**
 * The outbox relay a publishing service (access, issues) runs beside its API, from its
 * config, with the outbox metrics on the service's registry. Several replicas may run it
 * at once. Every event leaves tagged for the consumers under the keys the service shares
 * with them, or signed with its key under INTERNAL_TICKETS=signed (while consumers of an
 * older version run); consumers accept its event types only from it.
 */
export function relayServiceOutbox(config: OutboxServiceConfig, service: { logger: EventsLogger; metrics: Metrics }) {
  const metrics = outboxMetrics(service.metrics);
  const relay = startServiceRelay({
    databaseUrl: config.database.url,
    schema: config.database.schema,
    ...config.outbox,
    key: config.internal.key,
    trusted: config.internal.tagTickets ? config.internal.trusted : undefined,
    logger: service.logger,
    onBatch: metrics.onBatch,
  });
  metrics.watch(relay.backlog);
  return relay;
}
