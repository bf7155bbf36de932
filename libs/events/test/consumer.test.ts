import { amqpUrlVia, hostPort, startTcpProxy, testAmqpUrl } from '@tracker/testing';
import { consumerQueues, startConsumer, type Consumer, type ConsumerOptions, type DeliveryMeta, type EventEnvelope } from '../src';
import { captureLogger, issueCreated, sleep, testBroker, waitFor } from './support';

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
    logger,
    retryDelayMs: 100,
    ...overrides,
  });
  consumers.push(consumer);
  await consumer.ready();
  return { consumer, logger, names: consumerQueues(queue, broker.names.exchange) };
}

function publish(event: EventEnvelope | string | Buffer, routingKey = 'tracker.issue.created', messageId?: string) {
  const content = Buffer.isBuffer(event) ? event : Buffer.from(typeof event === 'string' ? event : JSON.stringify(event));
  const id = messageId ?? (typeof event === 'object' && !Buffer.isBuffer(event) ? event.event_id : undefined);
  broker.channel.publish(broker.names.exchange, routingKey, content, { persistent: true, contentType: 'application/json', messageId: id, headers: { 'x-request-id': 'req-7' } });
}

const depth = async (queue: string) => (await broker.channel.checkQueue(queue)).messageCount;

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
