import { hostPort, startTcpProxy, amqpUrlVia, testAmqpUrl } from '@tracker/testing';
import { Pool, type PoolClient } from 'pg';
import { devTrustedKeysText, parseTrustedKeys } from '@tracker/signing';
import { checkEventProof, EVENT_SIGNATURE_HEADER, EVENT_TAG_HEADER, outboxBacklog, parseEvent, startOutboxRelay, type OutboxRelay } from '../src';
import { captureLogger, countBy, insertOutbox, issueCreated, KEYS, outboxDatabase, sleep, testBroker, TRUSTED, userUpdated, waitFor } from './support';

type Setup = { database: Awaited<ReturnType<typeof outboxDatabase>>; broker: Awaited<ReturnType<typeof testBroker>>; relays: OutboxRelay[] };
let t: Setup;

beforeEach(async () => {
  t = { database: await outboxDatabase('relay'), broker: await testBroker('relay'), relays: [] };
});

afterEach(async () => {
  await Promise.all(t.relays.map((relay) => relay.stop()));
  await t.broker.close();
  await t.database.close();
});

function relay(overrides: Partial<Parameters<typeof startOutboxRelay>[0]> = {}) {
  const logger = captureLogger();
  const started = startOutboxRelay({
    pool: t.database.pool,
    schema: t.database.db.schema,
    amqpUrl: testAmqpUrl(),
    exchange: t.broker.names.exchange,
    key: KEYS.issues,
    logger,
    batchSize: 100,
    pollIntervalMs: 50,
    ...overrides,
  });
  t.relays.push(started);
  return Object.assign(started, { logger });
}

const unpublished = async () => Number((await t.database.db.query<{ n: string }>(`SELECT count(*) AS n FROM outbox_events WHERE published_at IS NULL`))[0].n);
const rows = () =>
  t.database.db.query<{ id: string; event_id: string; published_at: Date | null; attempts: number; last_error: string | null }>(
    `SELECT id, event_id, published_at, attempts, last_error FROM outbox_events ORDER BY id`,
  );

/** Counts the batches a relay marked published through this pool. */
function countBatches(pool: Pool): { published: number } {
  const counter = { published: 0 };
  const connect = pool.connect.bind(pool) as () => Promise<PoolClient>;
  const wrapped = new WeakSet<PoolClient>();
  (pool as unknown as { connect: () => Promise<PoolClient> }).connect = async () => {
    const client = await connect();
    if (!wrapped.has(client)) {
      wrapped.add(client);
      const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
      (client as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (...args) => {
        // A statement as text, or as a named statement's config.
        const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
        if (text?.includes('SET published_at')) counter.published += 1;
        return query(...args);
      };
    }
    return client;
  };
  return counter;
}

describe('outbox relay', () => {
  test('when rows are written, then each is published once as a persistent JSON message named by its event, in id order, and marked published', async () => {
    const received = await t.broker.collect(t.broker.names.queue('collector'));
    const events = [issueCreated({ requestId: 'req-1' }), issueCreated(), issueCreated({ requestId: 'req-3' })];
    await insertOutbox(t.database.db, t.database.db.schema, events);

    relay();
    await waitFor(() => received.length === 3, 10_000, '3 deliveries');
    await sleep(200);

    expect(received).toHaveLength(3);
    expect(received.map((m) => m.properties.messageId)).toEqual(events.map((e) => e.event_id));
    expect(received.map((m) => JSON.parse(m.content.toString()))).toEqual(events);
    expect(received[0].fields.routingKey).toBe('tracker.issue.created');
    expect(received[0].properties).toMatchObject({
      contentType: 'application/json',
      deliveryMode: 2,
      type: 'issue.created',
      timestamp: Math.floor(Date.parse(events[0].occurred_at) / 1000),
      headers: { 'x-request-id': 'req-1' },
    });
    expect(received[1].properties.headers?.['x-request-id']).toBeUndefined();
    for (const row of await rows()) expect(row).toMatchObject({ published_at: expect.any(Date), attempts: 1, last_error: null });
  });

  test('when the broker nacks a publish, then the row stays unpublished with its attempts and error, and is published on a later round', async () => {
    // A queue that refuses what it cannot hold makes the broker nack the publish.
    const full = t.broker.names.queue('full');
    await t.broker.channel.assertQueue(full, { durable: false, maxLength: 1, overflow: 'reject-publish' });
    await t.broker.channel.bindQueue(full, t.broker.names.exchange, 'tracker.#');
    const events = [issueCreated(), issueCreated(), issueCreated()];
    await insertOutbox(t.database.db, t.database.db.schema, events);

    const started = relay();
    await waitFor(async () => (await rows()).filter((r) => r.attempts >= 2).length === 2, 10_000, 'two failed rounds');
    const [first, second, third] = await rows();
    expect(first).toMatchObject({ published_at: expect.any(Date), attempts: 1 });
    for (const row of [second, third]) expect(row).toMatchObject({ published_at: null, last_error: expect.stringMatching(/nack/) });
    expect(started.logger.lines('warn', /did not confirm/).length).toBeGreaterThan(0);
    expect(await outboxBacklog(t.database.pool, t.database.db.schema)).toEqual({ count: 2, oldestAgeSeconds: expect.any(Number) });

    await t.broker.channel.deleteQueue(full);
    await waitFor(async () => (await unpublished()) === 0, 10_000, 'the retried rows published');
    expect((await rows()).map((r) => r.published_at)).toEqual([expect.any(Date), expect.any(Date), expect.any(Date)]);
  });

  test('when a burst of 2,000 rows is written, then the backlog drains and every event arrives exactly once, in id order', async () => {
    const received = await t.broker.collect(t.broker.names.queue('collector'));
    const events = Array.from({ length: 2000 }, () => issueCreated());
    await insertOutbox(t.database.db, t.database.db.schema, events);
    await sleep(20);
    const before = await outboxBacklog(t.database.pool, t.database.db.schema);
    expect(before.count).toBe(2000);
    expect(before.oldestAgeSeconds).toBeGreaterThan(0);

    relay({ batchSize: 200 });
    await waitFor(() => received.length >= 2000, 20_000, '2,000 deliveries');
    await sleep(200);

    expect(received).toHaveLength(2000);
    expect(received.map((m) => m.properties.messageId)).toEqual(events.map((e) => e.event_id));
    expect(await outboxBacklog(t.database.pool, t.database.db.schema)).toEqual({ count: 0, oldestAgeSeconds: 0 });
  });

  test('when two relays drain one table at once, then no event is published twice and all are published', async () => {
    const received = await t.broker.collect(t.broker.names.queue('collector'));
    const events = Array.from({ length: 2000 }, () => issueCreated());
    await insertOutbox(t.database.db, t.database.db.schema, events);

    // Separate pools, as two replicas would have.
    const otherPool = new Pool({ connectionString: t.database.db.databaseUrl, max: 3 });
    const batches = [countBatches(t.database.pool), countBatches(otherPool)];
    try {
      relay({ batchSize: 50 });
      relay({ batchSize: 50, pool: otherPool });
      await waitFor(async () => (await unpublished()) === 0, 20_000, 'all rows published');
      await sleep(300);
      await Promise.all(t.relays.map((r) => r.stop()));
    } finally {
      await otherPool.end();
    }

    const counts = countBy(received, (m) => String(m.properties.messageId));
    expect(counts.size).toBe(2000);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect((await rows()).every((r) => r.attempts === 1)).toBe(true);
    // Both took part: each marked some batches published.
    expect(batches.map((b) => b.published)).toEqual([expect.any(Number), expect.any(Number)]);
    expect(Math.min(...batches.map((b) => b.published))).toBeGreaterThan(0);
  });

  test('when an outbox transaction stays open while hundreds of others commit, then its event is still published after it commits', async () => {
    const received = await t.broker.collect(t.broker.names.queue('collector'));
    const { Client } = await import('pg');
    const slow = new Client({ connectionString: t.database.db.databaseUrl });
    await slow.connect();
    try {
      const late = issueCreated();
      await slow.query('BEGIN');
      await insertOutbox(slow, t.database.db.schema, [late]);

      relay({ batchSize: 50 });
      const quick = Array.from({ length: 300 }, () => issueCreated());
      for (let i = 0; i < quick.length; i += 10) await insertOutbox(t.database.pool, t.database.db.schema, quick.slice(i, i + 10));
      await waitFor(() => received.length === 300, 15_000, 'the 300 committed events');
      await sleep(200);
      expect(received.map((m) => m.properties.messageId)).not.toContain(late.event_id);

      await slow.query('COMMIT');
      await waitFor(() => received.length === 301, 10_000, 'the late event');
      expect(received[300].properties.messageId).toBe(late.event_id);
      const [lateRow] = await t.database.db.query<{ id: string }>(`SELECT id FROM outbox_events WHERE event_id = $1`, [late.event_id]);
      const [{ min }] = await t.database.db.query<{ min: string }>(`SELECT min(id) AS min FROM outbox_events WHERE event_id <> $1`, [late.event_id]);
      // Its id is older than all the rows published before it: an id cursor would have skipped it.
      expect(BigInt(lateRow.id)).toBeLessThan(BigInt(min));
    } finally {
      await slow.end();
    }
  });

  test('when the broker connection is cut mid-burst, then the relay reconnects by itself and every event arrives, all rows end published', async () => {
    const received = await t.broker.collect(t.broker.names.queue('collector'));
    const proxy = await startTcpProxy(...hostPort(testAmqpUrl()));
    try {
      const events = Array.from({ length: 2000 }, () => issueCreated());
      await insertOutbox(t.database.db, t.database.db.schema, events);
      const started = relay({ amqpUrl: amqpUrlVia(proxy.port), batchSize: 50 });

      await waitFor(() => received.length >= 300, 15_000, 'part of the burst');
      await proxy.cut();
      await sleep(1500);
      expect(await unpublished()).toBeGreaterThan(0);
      await proxy.restore();

      await waitFor(async () => (await unpublished()) === 0, 20_000, 'the backlog drained');
      await waitFor(() => new Set(received.map((m) => m.properties.messageId)).size === 2000, 5_000, 'every event delivered');
      // Duplicates only for rows whose confirm was lost with the connection.
      expect(received.length - 2000).toBeLessThanOrEqual(50);
      expect(started.logger.lines('warn', /lost the broker connection/)).toHaveLength(1);
      expect(started.logger.lines('info', /reconnected to the broker/)).toHaveLength(1);
      expect(started.logger.entries.filter((e) => e.level === 'warn' || e.level === 'error').length).toBeLessThanOrEqual(3);
    } finally {
      await proxy.close();
    }
  });

  test('when the relay is stopped mid-burst, then it finishes its batch, marks only what was confirmed and closes', async () => {
    const received = await t.broker.collect(t.broker.names.queue('collector'));
    await insertOutbox(t.database.db, t.database.db.schema, Array.from({ length: 1000 }, () => issueCreated()));
    const started = relay({ batchSize: 100 });
    await waitFor(() => received.length >= 100, 10_000, 'a first batch');

    await started.stop();
    await expect(started.drainOnce()).rejects.toThrow(/stopped/);
    await sleep(300);
    const published = (await rows()).filter((r) => r.published_at !== null);
    expect(published.length % 100).toBe(0);
    expect(new Set(received.map((m) => m.properties.messageId))).toEqual(new Set(published.map((r) => r.event_id)));
    expect(started.logger.lines('info', /stopped/)).toHaveLength(1);
  });

  test('when the broker is unreachable at start, then drainOnce fails, the relay keeps retrying quietly and publishes once the broker is there', async () => {
    const proxy = await startTcpProxy(...hostPort(testAmqpUrl()));
    await proxy.cut();
    try {
      const received = await t.broker.collect(t.broker.names.queue('collector'));
      await insertOutbox(t.database.db, t.database.db.schema, [issueCreated()]);
      const started = relay({ amqpUrl: amqpUrlVia(proxy.port) });
      await expect(started.drainOnce()).rejects.toThrow();
      await sleep(1500);
      expect(started.logger.entries.filter((e) => e.level === 'warn')).toHaveLength(1);

      await proxy.restore();
      await waitFor(() => received.length === 1, 10_000, 'the event');
      expect(started.logger.lines('info', /connected to the broker/)).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  test('when the relay is to tag but trusts no key of the statistics service, then it refuses to start, saying why', () => {
    const withoutStatistics = parseTrustedKeys(devTrustedKeysText().split(',').filter((entry) => !entry.startsWith('statistics:')).join(','));
    expect(() => relay({ trusted: withoutStatistics })).toThrow('cannot tag events: no public key of statistics is trusted (INTERNAL_TRUSTED_KEYS)');
  });

  test.each([
    ['tagged for the consumers (the services\' default)', TRUSTED, EVENT_TAG_HEADER, /^m1\./],
    ['signed (INTERNAL_TICKETS=signed)', undefined, EVENT_SIGNATURE_HEADER, /^v1\./],
  ] as const)('when rows are relayed %s, then every message carries the publishing service\'s proof over its exact body, rows written before the upgrade included', async (_mode, trusted, header, form) => {
    const received = await t.broker.collect(t.broker.names.queue('collector'));
    // Rows carry no proof: the relay makes it when it publishes, so a backlog written by an older version goes out proved too.
    const issues = [issueCreated({ requestId: 'req-1' }), issueCreated()];
    await insertOutbox(t.database.db, t.database.db.schema, issues);
    relay({ trusted });
    await waitFor(() => received.length === 2, 10_000, 'the issues events');

    const accessDb = await outboxDatabase('relay-access');
    try {
      const user = userUpdated();
      await insertOutbox(accessDb.db, accessDb.db.schema, [user]);
      relay({ pool: accessDb.pool, schema: accessDb.db.schema, key: KEYS.access, trusted });
      await waitFor(() => received.length === 3, 10_000, 'the access event');
    } finally {
      await Promise.all(t.relays.splice(1).map((r) => r.stop()));
      await accessDb.close();
    }

    // Checked as the statistics service checks them.
    const proofs = received.map((m) => ({ signature: m.properties.headers?.[EVENT_SIGNATURE_HEADER], tag: m.properties.headers?.[EVENT_TAG_HEADER] }));
    const checks = received.map((m, i) => checkEventProof(proofs[i]!, parseEvent(JSON.parse(m.content.toString())), m.content, { key: KEYS.statistics, trusted: TRUSTED }));
    expect(checks).toEqual([
      { ok: true, signer: 'issues' },
      { ok: true, signer: 'issues' },
      { ok: true, signer: 'access' },
    ]);
    expect(received[0].properties.headers).toEqual({ 'x-request-id': 'req-1', [header]: expect.stringMatching(form) });
    expect(received[1].properties.headers).toEqual({ [header]: expect.stringMatching(form) });
  });

  test('when rows hold an event type another service publishes, then they are left alone (unsent, never counted as failures) and cannot hold the relay up', async () => {
    const received = await t.broker.collect(t.broker.names.queue('collector'));
    // More foreign rows than a batch, ahead of ours: selecting them would starve the relay.
    const foreign = Array.from({ length: 3 }, () => userUpdated());
    const ours = [issueCreated(), issueCreated()];
    await insertOutbox(t.database.db, t.database.db.schema, [...foreign, ...ours]);

    const started = relay({ batchSize: 2 });
    await waitFor(() => received.length === 2, 10_000, 'the two issues events');
    await sleep(200);

    expect(received.map((m) => m.properties.messageId)).toEqual(ours.map((e) => e.event_id));
    const left = (await rows()).slice(0, 3);
    expect(left.map((r) => ({ published_at: r.published_at, attempts: r.attempts }))).toEqual(foreign.map(() => ({ published_at: null, attempts: 0 })));
    expect(started.logger.lines('warn', /did not confirm/)).toEqual([]);
  });
});
