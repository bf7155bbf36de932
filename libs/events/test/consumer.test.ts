import { amqpUrlVia, hostPort, startTcpProxy, testAmqpUrl } from '@tracker/testing';
import { randomBytes } from 'node:crypto';
import { macPayload, sharedKeys, signingKeyFromSeed, type SigningKey } from '@tracker/signing';
import {
  bodyDigestOf,
  consumerQueues,
  EVENT_SIGNATURE_HEADER,
  EVENT_TAG_HEADER,
  EventRefused,
  signEventMessage,
  startConsumer,
  taggedEventHeaders,
  tagEventMessage,
  type Consumer,
  type ConsumerOptions,
  type DeliveryMeta,
  type DeliveryOutcome,
  type EventEnvelope,
} from '../src';
import { captureLogger, issueCreated, KEYS, sleep, testBroker, TRUSTED, userUpdated, waitFor } from './support';

let broker: Awaited<ReturnType<typeof testBroker>>;
let consumers: Consumer[];

beforeEach(async () => {
  broker = await testBroker('consumer');
  consumers = [];
});

afterEach(async () => {
  await Promise.all(consumers.map((c) => c.stop()));
  await broker.close();
});

type Call = { event: EventEnvelope; meta: DeliveryMeta };

async function consume(handler: ConsumerOptions['handler'], overrides: Partial<ConsumerOptions> = {}) {
  const logger = captureLogger();
  const queue = broker.names.queue('stats');
  const consumer = startConsumer({
    amqpUrl: testAmqpUrl(),
    exchange: broker.names.exchange,
    queue,
    bindings: ['tracker.issue.*', 'tracker.queue.*'],
    handler,
    trusted: TRUSTED,
    key: KEYS.statistics,
    logger,
    retryDelayMs: 100,
    ...overrides,
  });
  consumers.push(consumer);
  await consumer.ready();
  return { consumer, logger, names: consumerQueues(queue, broker.names.exchange) };
}

/** Publishes as the issues relay does: an event object is tagged for the consumers with the issues keys; text and bytes go without a proof. */
function publish(event: EventEnvelope | string | Buffer, routingKey = 'tracker.issue.created', messageId?: string) {
  const content = Buffer.isBuffer(event) ? event : Buffer.from(typeof event === 'string' ? event : JSON.stringify(event));
  const id = messageId ?? (typeof event === 'object' && !Buffer.isBuffer(event) ? event.event_id : undefined);
  const signature = typeof event === 'object' && !Buffer.isBuffer(event) ? taggedEventHeaders({ key: KEYS.issues, trusted: TRUSTED }, event, content) : {};
  broker.channel.publish(broker.names.exchange, routingKey, content, {
    persistent: true,
    contentType: 'application/json',
    messageId: id,
    headers: { 'x-request-id': 'req-7', ...signature },
  });
}

/** Publishes `content` with exactly these headers: what anyone with access to the exchange can do. */
function publishAs(content: Buffer | EventEnvelope, headers: Record<string, unknown>, routingKey = 'tracker.issue.created', messageId?: string) {
  const body = Buffer.isBuffer(content) ? content : Buffer.from(JSON.stringify(content));
  const id = messageId ?? (Buffer.isBuffer(content) ? undefined : content.event_id);
  broker.channel.publish(broker.names.exchange, routingKey, body, { persistent: true, contentType: 'application/json', messageId: id, headers });
}

const signedBy = (key: SigningKey, event: EventEnvelope, body = Buffer.from(JSON.stringify(event))) => ({ [EVENT_SIGNATURE_HEADER]: signEventMessage(key, event, body) });
const taggedBy = (key: SigningKey, event: EventEnvelope, body = Buffer.from(JSON.stringify(event))) => ({ [EVENT_TAG_HEADER]: tagEventMessage({ key, trusted: TRUSTED }, event, body) });

/** The refusals the consumer logged, in order: which event, why, and whom its proof named. */
const refusals = (logger: ReturnType<typeof captureLogger>) =>
  logger.lines('warn', /^event refused: .*; dead-lettered$/).map((l) => [l.obj.eventId, l.obj.reason, l.obj.claimedSigner]);

const depth = async (queue: string) => (await broker.channel.checkQueue(queue)).messageCount;

/** Every message in `queue`, taken off it. */
async function drain(queue: string) {
  const messages = [];
  for (let m = await broker.channel.get(queue, { noAck: true }); m; m = await broker.channel.get(queue, { noAck: true })) messages.push(m);
  return messages;
}

describe('event consumer', () => {
  test('when an event is published, then the handler gets the parsed event with its delivery details and the message is acked', async () => {
    const calls: Call[] = [];
    const { names } = await consume(async (event, meta) => void calls.push({ event, meta }));
    const event = issueCreated();
    publish(event);

    await waitFor(() => calls.length === 1, 5000, 'the delivery');
    expect(calls[0].event).toEqual(event);
    expect(calls[0].meta).toEqual({ attempt: 1, redelivered: false, routingKey: 'tracker.issue.created', messageId: event.event_id, requestId: 'req-7' });
    await sleep(200);
    expect(await depth(names.queue)).toBe(0);
    expect(await depth(names.dead)).toBe(0);
  });

  test('when the same event is delivered twice, then the handler sees it twice (deduplicating by event_id and revision is its job)', async () => {
    const calls: Call[] = [];
    await consume(async (event, meta) => void calls.push({ event, meta }));
    const event = issueCreated();
    publish(event);
    publish(event);

    await waitFor(() => calls.length === 2, 5000, 'two deliveries');
    expect(calls.map((c) => c.event.event_id)).toEqual([event.event_id, event.event_id]);
  });

  test('when a message is not JSON or not a valid event, then it lands in the dead-letter queue once, never reaching the handler or looping', async () => {
    const calls: Call[] = [];
    const { names, logger } = await consume(async (event, meta) => void calls.push({ event, meta }));
    publish('{"not json', 'tracker.issue.created', 'bad-json');
    publish(JSON.stringify({ ...issueCreated(), type: 'issue.deleted' }), 'tracker.issue.created', 'bad-event');
    const good = issueCreated();
    publish(good);

    await waitFor(() => calls.length === 1, 5000, 'the valid event');
    await waitFor(async () => (await depth(names.dead)) === 2, 5000, 'two dead letters');
    await sleep(500);
    expect(calls.map((c) => c.event.event_id)).toEqual([good.event_id]);
    expect(await depth(names.dead)).toBe(2);
    expect(await depth(names.queue)).toBe(0);
    expect(await depth(names.retry)).toBe(0);
    expect(logger.lines('error', /poison/).map((e) => e.obj.messageId)).toEqual(['bad-json', 'bad-event']);

    const dead = await broker.channel.get(names.dead, { noAck: true });
    expect(dead && dead.content.toString()).toBe('{"not json');
    expect(dead && dead.properties.headers?.['x-death']?.[0]).toMatchObject({ queue: names.queue, reason: 'rejected', count: 1 });
  });

  test('when the handler always throws, then it is called maxAttempts times with a pause between, and the message is dead-lettered', async () => {
    const calls: { meta: DeliveryMeta; at: number }[] = [];
    const { names, logger } = await consume(
      async (_event, meta) => {
        calls.push({ meta, at: Date.now() });
        throw new Error('replica down');
      },
      { maxAttempts: 3, retryDelayMs: 200 },
    );
    const event = issueCreated();
    publish(event, 'tracker.issue.created');

    await waitFor(async () => (await depth(names.dead)) === 1, 8000, 'the dead letter');
    await sleep(600);
    expect(calls.map((c) => c.meta.attempt)).toEqual([1, 2, 3]);
    // The routing key survives the trip through the retry queue.
    expect(calls.map((c) => c.meta.routingKey)).toEqual(['tracker.issue.created', 'tracker.issue.created', 'tracker.issue.created']);
    expect(calls[1].at - calls[0].at).toBeGreaterThanOrEqual(150);
    expect(calls[2].at - calls[1].at).toBeGreaterThanOrEqual(150);
    expect(await depth(names.queue)).toBe(0);
    expect(await depth(names.retry)).toBe(0);
    expect(logger.lines('warn', /will retry/)).toHaveLength(2);
    expect(logger.lines('error', /dead-lettered/)).toHaveLength(1);
    const dead = await broker.channel.get(names.dead, { noAck: true });
    expect(dead && JSON.parse(dead.content.toString()).event_id).toBe(event.event_id);
    expect(dead && dead.properties.messageId).toBe(event.event_id);
  });

  test('when the handler fails once and then succeeds, then the message is acked and nothing is dead-lettered', async () => {
    const attempts: number[] = [];
    const { names } = await consume(async (_event, meta) => {
      attempts.push(meta.attempt);
      if (meta.attempt === 1) throw new Error('deadlock detected');
    });
    publish(issueCreated());

    await waitFor(() => attempts.length === 2, 5000, 'the retry');
    await sleep(300);
    expect(attempts).toEqual([1, 2]);
    expect(await depth(names.queue)).toBe(0);
    expect(await depth(names.retry)).toBe(0);
    expect(await depth(names.dead)).toBe(0);
  });

  test('when handlers are slow, then no more than prefetch deliveries run at once', async () => {
    let running = 0;
    let most = 0;
    let done = 0;
    await consume(
      async () => {
        running += 1;
        most = Math.max(most, running);
        await sleep(100);
        running -= 1;
        done += 1;
      },
      { prefetch: 3 },
    );
    for (let i = 0; i < 12; i += 1) publish(issueCreated());

    await waitFor(() => done === 12, 8000, 'all handled');
    expect(most).toBe(3);
  });

  test('when the broker connection is cut, then the consumer reconnects by itself and keeps consuming, events published meanwhile included', async () => {
    const proxy = await startTcpProxy(...hostPort(testAmqpUrl()));
    try {
      const seen: string[] = [];
      const { logger } = await consume(async (event) => void seen.push(event.event_id), { amqpUrl: amqpUrlVia(proxy.port) });
      const before = issueCreated();
      publish(before);
      await waitFor(() => seen.length === 1, 5000, 'the first event');

      await proxy.cut();
      const during = issueCreated();
      publish(during);
      await sleep(1000);
      await proxy.restore();
      const after = issueCreated();
      await waitFor(() => seen.includes(during.event_id), 10_000, 'the event published while cut');
      publish(after);
      await waitFor(() => seen.includes(after.event_id), 5000, 'the event published after');

      expect(logger.lines('warn', /lost the broker connection/)).toHaveLength(1);
      expect(logger.lines('info', /reconnected/)).toHaveLength(1);
      expect(logger.entries.filter((e) => e.level === 'warn' || e.level === 'error')).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  test('when stopped while a handler runs, then stop waits for it, the message is acked and no more are taken', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const started: string[] = [];
    const finished: string[] = [];
    const { consumer, names } = await consume(
      async (event) => {
        started.push(event.event_id);
        await gate;
        finished.push(event.event_id);
      },
      { prefetch: 1 },
    );
    const first = issueCreated();
    publish(first);
    publish(issueCreated());
    await waitFor(() => started.length === 1, 5000, 'the handler to start');

    let stopped = false;
    const stopping = consumer.stop().then(() => (stopped = true));
    await sleep(300);
    expect(stopped).toBe(false);
    release();
    await stopping;

    expect(finished).toEqual([first.event_id]);
    expect(started).toEqual([first.event_id]);
    // The finished one was acked; the other waits in the queue for the next consumer.
    await waitFor(async () => (await depth(names.queue)) === 1, 3000, 'one message left');
    await expect(consumer.ready()).rejects.toThrow(/stopped/);
  });
});

describe('who published an event', () => {
  test('when events come from a forger (unsigned, signed by another component, by the source of another type, or altered after signing), then none reaches the handler and each lands in the dead-letter queue', async () => {
    const calls: Call[] = [];
    const outcomes: DeliveryOutcome[] = [];
    const { names, logger } = await consume(async (event, meta) => void calls.push({ event, meta }), {
      bindings: ['tracker.#'],
      onOutcome: (o) => outcomes.push(o),
    });
    const stranger = signingKeyFromSeed('issues', randomBytes(32).toString('base64url'));
    const unsigned = issueCreated();
    const byAgent = issueCreated();
    const byGateway = issueCreated();
    const byStranger = issueCreated();
    const userByIssues = userUpdated(31);
    const altered = issueCreated();
    const alteredBody = Buffer.from(JSON.stringify({ ...altered, workspace_id: 2, data: { issue: { ...altered.data.issue, workspace_id: 2 } } }));
    const lifted = issueCreated();
    const genuine = issueCreated();
    const genuineUser = userUpdated(32);

    publishAs(unsigned, { 'x-request-id': 'req-forged' });
    publishAs(byAgent, signedBy(KEYS.agent, byAgent));
    publishAs(byGateway, signedBy(KEYS.gateway, byGateway));
    publishAs(byStranger, signedBy(stranger, byStranger));
    publishAs(userByIssues, signedBy(KEYS.issues, userByIssues), 'tracker.user.updated');
    publishAs(alteredBody, signedBy(KEYS.issues, altered), 'tracker.issue.created', altered.event_id);
    // A genuine signature of another message, copied onto this one.
    publishAs(lifted, signedBy(KEYS.issues, genuine));
    publishAs(genuine, signedBy(KEYS.issues, genuine));
    publishAs(genuineUser, signedBy(KEYS.access, genuineUser), 'tracker.user.updated');

    await waitFor(async () => (await depth(names.dead)) === 7, 5000, 'seven dead letters');
    await waitFor(() => calls.length === 2, 5000, 'the genuine events');
    await sleep(300);
    expect(calls.map((c) => c.event.event_id).sort()).toEqual([genuine.event_id, genuineUser.event_id].sort());
    expect(await depth(names.dead)).toBe(7);
    expect(await depth(names.retry)).toBe(0);

    expect(refusals(logger)).toEqual([
      [unsigned.event_id, 'unsigned', undefined],
      [byAgent.event_id, 'wrong_source', 'agent'],
      [byGateway.event_id, 'wrong_source', 'gateway'],
      [byStranger.event_id, 'bad_signature', 'issues'],
      [userByIssues.event_id, 'wrong_source', 'issues'],
      [altered.event_id, 'bad_signature', 'issues'],
      [lifted.event_id, 'bad_signature', 'issues'],
    ]);
    expect(logger.lines('warn', /refused/).find((l) => l.obj.eventId === userByIssues.event_id)?.obj.expectedSigner).toBe('access');
    expect(outcomes.filter((o) => o.outcome === 'dead_lettered').map((o) => o.reason)).toEqual([
      'unsigned',
      'wrong_source',
      'wrong_source',
      'bad_signature',
      'wrong_source',
      'bad_signature',
      'bad_signature',
    ]);
    expect(outcomes.filter((o) => o.outcome === 'acked')).toHaveLength(2);

    const dead = await drain(names.dead);
    expect(dead.map((m) => m.properties.messageId)).toEqual([unsigned, byAgent, byGateway, byStranger, userByIssues, altered, lifted].map((e) => e.event_id));
    // Dead letters keep the body and headers they came with, for whoever investigates.
    expect(dead[5]!.content.equals(alteredBody)).toBe(true);
    expect(dead[0]!.properties.headers).toMatchObject({ 'x-request-id': 'req-forged', 'x-death': [expect.objectContaining({ reason: 'rejected', queue: names.queue })] });
  });

  test('when tagged events come from a forger (tagged by another component, by the source of another type, for another consumer, under the ticket key, or altered after tagging), then none reaches the handler and each lands in the dead-letter queue', async () => {
    const calls: Call[] = [];
    const { names, logger } = await consume(async (event, meta) => void calls.push({ event, meta }), { bindings: ['tracker.#'] });
    const stranger = signingKeyFromSeed('issues', randomBytes(32).toString('base64url'));
    const claimsOf = (event: EventEnvelope) => ({ signer: 'issues', use: 'event', event_id: event.event_id, type: event.type, digest: bodyDigestOf(Buffer.from(JSON.stringify(event))) });
    const byAgent = issueCreated();
    const byStranger = issueCreated();
    const userByIssues = userUpdated(41);
    const forAgent = issueCreated();
    const underTicketKey = issueCreated();
    const altered = issueCreated();
    const alteredBody = Buffer.from(JSON.stringify({ ...altered, workspace_id: 2 }));
    const genuine = issueCreated();
    const genuineUser = userUpdated(42);
    const signedByOlderRelay = issueCreated();

    publishAs(byAgent, taggedBy(KEYS.agent, byAgent));
    publishAs(byStranger, taggedBy(stranger, byStranger));
    publishAs(userByIssues, taggedBy(KEYS.issues, userByIssues), 'tracker.user.updated');
    publishAs(forAgent, { [EVENT_TAG_HEADER]: macPayload(sharedKeys(KEYS.issues, TRUSTED, 'event').with('agent'), claimsOf(forAgent)) });
    publishAs(underTicketKey, { [EVENT_TAG_HEADER]: macPayload(sharedKeys(KEYS.issues, TRUSTED).with('statistics'), claimsOf(underTicketKey)) });
    publishAs(alteredBody, taggedBy(KEYS.issues, altered), 'tracker.issue.created', altered.event_id);
    publishAs(genuine, taggedBy(KEYS.issues, genuine));
    publishAs(genuineUser, taggedBy(KEYS.access, genuineUser), 'tracker.user.updated');
    // A relay of the version before tags, or one set to sign: still accepted.
    publishAs(signedByOlderRelay, signedBy(KEYS.issues, signedByOlderRelay));

    await waitFor(async () => (await depth(names.dead)) === 6, 5000, 'six dead letters');
    await waitFor(() => calls.length === 3, 5000, 'the genuine events');
    await sleep(300);
    expect(calls.map((c) => c.event.event_id).sort()).toEqual([genuine, genuineUser, signedByOlderRelay].map((e) => e.event_id).sort());
    expect(await depth(names.dead)).toBe(6);
    expect(refusals(logger)).toEqual([
      [byAgent.event_id, 'wrong_source', 'agent'],
      [byStranger.event_id, 'bad_signature', 'issues'],
      [userByIssues.event_id, 'wrong_source', 'issues'],
      [forAgent.event_id, 'bad_signature', 'issues'],
      [underTicketKey.event_id, 'bad_signature', 'issues'],
      [altered.event_id, 'bad_signature', 'issues'],
    ]);
  });

  test('when a tagged event fails once, then its retry copy keeps the tag and is applied', async () => {
    const attempts: number[] = [];
    const { names } = await consume(async (_event, meta) => {
      attempts.push(meta.attempt);
      if (meta.attempt === 1) throw new Error('transient');
    });
    publish(issueCreated());
    await waitFor(() => attempts.length === 2, 5000, 'the retry');
    await sleep(200);
    expect(await depth(names.dead)).toBe(0);
  });

  test('when the handler refuses an event, then it is dead-lettered at once with one warning, not retried', async () => {
    const attempts: number[] = [];
    const outcomes: DeliveryOutcome[] = [];
    const { names, logger } = await consume(
      async (_event, meta) => {
        attempts.push(meta.attempt);
        throw new EventRefused('workspace mismatch', { heldWorkspaceId: 4 });
      },
      { maxAttempts: 5, onOutcome: (o) => outcomes.push(o) },
    );
    const event = issueCreated();
    publish(event);

    await waitFor(async () => (await depth(names.dead)) === 1, 5000, 'the dead letter');
    await sleep(400);
    expect(attempts).toEqual([1]);
    expect(outcomes).toEqual([{ queue: names.queue, outcome: 'dead_lettered', reason: 'refused', redelivered: false }]);
    expect(logger.lines('warn', /refused by the handler/).map((l) => [l.obj.eventId, l.obj.refusal, l.obj.heldWorkspaceId])).toEqual([[event.event_id, 'workspace mismatch', 4]]);
    expect(logger.entries.filter((e) => e.level === 'error')).toEqual([]);
  });
});

describe('the dead-letter queue', () => {
  test('when more messages are dead-lettered than its bound, then it keeps the newest ones up to the bound', async () => {
    const { names } = await consume(async () => undefined, { deadLetterMaxLength: 3 });
    for (let i = 1; i <= 6; i += 1) publish(`not json ${i}`, 'tracker.issue.created', `poison-${i}`);

    await waitFor(async () => (await depth(names.queue)) === 0, 5000, 'the queue to drain');
    await sleep(300);
    expect(await depth(names.dead)).toBe(3);
    expect((await drain(names.dead)).map((m) => m.properties.messageId)).toEqual(['poison-4', 'poison-5', 'poison-6']);
  });

  test('when it is bounded by bytes, then the total size stays under the bound', async () => {
    const { names } = await consume(async () => undefined, { deadLetterMaxBytes: 2500 });
    for (let i = 1; i <= 5; i += 1) publish(Buffer.alloc(1000, 120), 'tracker.issue.created', `big-${i}`);

    await waitFor(async () => (await depth(names.queue)) === 0, 5000, 'the queue to drain');
    await sleep(300);
    expect((await drain(names.dead)).map((m) => m.properties.messageId)).toEqual(['big-4', 'big-5']);
  });

  test('when the unbounded dead-letter queue of an earlier version holds messages, then it is unbound and kept, and new dead letters go to the bounded one', async () => {
    const queue = broker.names.queue('legacy');
    const names = consumerQueues(queue, broker.names.exchange);
    // The topology of the earlier version, with one dead letter in it.
    await broker.channel.assertExchange(names.deadLetterExchange, 'direct', { durable: true });
    await broker.channel.assertQueue(names.legacyDead, { durable: true });
    await broker.channel.bindQueue(names.legacyDead, names.deadLetterExchange, queue);
    await broker.channel.assertQueue(queue, { durable: true, deadLetterExchange: names.deadLetterExchange, deadLetterRoutingKey: queue });
    broker.channel.sendToQueue(names.legacyDead, Buffer.from('old dead letter'));

    const { logger } = await consume(async () => undefined, { queue });
    publish('{"poison', 'tracker.issue.created', 'new-poison');

    await waitFor(async () => (await depth(names.dead)) === 1, 5000, 'the new dead letter');
    await sleep(200);
    expect(await depth(names.legacyDead)).toBe(1);
    expect((await drain(names.dead)).map((m) => m.properties.messageId)).toEqual(['new-poison']);
    expect(logger.lines('warn', /earlier version still holds messages/).map((l) => [l.obj.legacyQueue, l.obj.messages])).toEqual([[names.legacyDead, 1]]);
  });

  test('when the unbounded dead-letter queue of an earlier version is empty, then it is deleted', async () => {
    const queue = broker.names.queue('legacy');
    const names = consumerQueues(queue, broker.names.exchange);
    await broker.channel.assertExchange(names.deadLetterExchange, 'direct', { durable: true });
    await broker.channel.assertQueue(names.legacyDead, { durable: true });
    await broker.channel.bindQueue(names.legacyDead, names.deadLetterExchange, queue);

    const { logger } = await consume(async () => undefined, { queue });

    expect(logger.lines('info', /deleted the empty unbounded dead-letter queue/)).toHaveLength(1);
    const probe = await broker.connection.createChannel();
    probe.on('error', () => undefined);
    await expect(probe.checkQueue(names.legacyDead)).rejects.toThrow(/NOT_FOUND/);
  });

  test('when the dead-letter queue exists with another bound, then the consumer says so instead of consuming', async () => {
    const queue = broker.names.queue('rebound');
    const names = consumerQueues(queue, broker.names.exchange);
    await broker.channel.assertQueue(names.dead, { durable: true, arguments: { 'x-max-length': 5 } });
    const logger = captureLogger();
    const consumer = startConsumer({
      amqpUrl: testAmqpUrl(),
      exchange: broker.names.exchange,
      queue,
      bindings: ['tracker.issue.*'],
      handler: async () => undefined,
      trusted: TRUSTED,
      key: KEYS.statistics,
      logger,
      reconnect: { initialDelayMs: 50, maxDelayMs: 100 },
    });
    consumers.push(consumer);

    await waitFor(() => logger.lines('error', /cannot declare its dead-letter queue/).length >= 1, 5000, 'the error');
    expect(String(logger.lines('error', /cannot declare its dead-letter queue/)[0]!.obj.err)).toMatch(/exists with other arguments/);
  });
});

