import { randomBytes } from 'node:crypto';
import { connect, type ChannelModel, type ConsumeMessage } from 'amqplib';
import { pollUntil, seedWorkspace, startSystem, type ServiceName, type ServiceProcess, type System } from '@tracker/system-tests-support';
import { testAmqpUrl } from '@tracker/testing';

/**
 * Observability end to end: one request through the gateway shows up in every service's
 * metrics on their separate /metrics listeners, its event flows through the outbox, the
 * broker and the statistics consumer, and its request id is in the logs and the event.
 */
let system: System;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;
let queueId: number;
let broker: ChannelModel;
const seen: ConsumeMessage[] = [];

beforeAll(async () => {
  system = await startSystem();
  ws = await seedWorkspace(system);
  const queue = await system.api('POST', '/api/v1/queues', { token: ws.admin.token, body: { key: 'OBS', name: 'Observed' } });
  queueId = queue.body.id;
  // A tap on this system's exchange: what the statistics consumer receives, as it receives it.
  broker = await connect(testAmqpUrl());
  const channel = await broker.createChannel();
  const tap = await channel.assertQueue('', { exclusive: true, autoDelete: true });
  await channel.bindQueue(tap.queue, system.serviceEnv.EVENTS_EXCHANGE!, 'tracker.issue.*');
  await channel.consume(tap.queue, (msg) => msg && seen.push(msg), { noAck: true });
}, 120_000);
afterAll(async () => {
  await broker?.close();
  await system?.stop();
});

interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text format into samples by metric name. */
async function scrape(service: ServiceProcess): Promise<Map<string, Sample[]>> {
  const res = await fetch(`${service.metricsUrl}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  const samples = new Map<string, Sample[]>();
  for (const line of (await res.text()).split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    samples.set(match[1]!, [...(samples.get(match[1]!) ?? []), { labels, value: Number(match[3]) }]);
  }
  return samples;
}

/** Every replica of a service, each scraped (one when not replicated). */
const scrapeAll = (name: ServiceName) => Promise.all(system.instances(name).map(scrape));

/** The sum of a metric's samples whose labels include `where`, over one replica's samples or every replica's. */
function total(samples: Map<string, Sample[]> | Map<string, Sample[]>[], name: string, where: Record<string, string> = {}): number {
  return [samples]
    .flat()
    .flatMap((replica) => replica.get(name) ?? [])
    .filter((s) => Object.entries(where).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

/** Everything the replicas of a service printed. */
const outputOf = (name: ServiceName) => system.instances(name).map((s) => s.output()).join('\n');


describe('metrics, events and request ids end to end', () => {
  test('when an issue is created with a request id, then metrics, the event and the logs of every hop show it', async () => {
    // Replicated, the request and its event meet one replica of each: counts are summed over the replicas.
    const [gatewayBefore, issuesBefore, statisticsBefore] = await Promise.all([scrapeAll('gateway'), scrapeAll('issues'), scrapeAll('statistics')]);
    const created = { method: 'POST', route: '/api/v1/issues', status: '201' };
    const acked = { outcome: 'acked' };

    const rid = `obs-${randomBytes(6).toString('hex')}`;
    const res = await system.api('POST', '/api/v1/issues', {
      token: ws.admin.token,
      body: { queue_id: queueId, title: 'Watched issue' },
      headers: { 'x-request-id': rid },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBe(rid);

    // The request: counted and timed by the gateway and by the issues service, by route template.
    const gatewayAfter = await scrapeAll('gateway');
    expect(total(gatewayAfter, 'http_requests_total', created) - total(gatewayBefore, 'http_requests_total', created)).toBe(1);
    expect(total(gatewayAfter, 'http_request_duration_seconds_count', created)).toBeGreaterThanOrEqual(1);
    const issuesAfter = await scrapeAll('issues');
    expect(total(issuesAfter, 'http_requests_total', created) - total(issuesBefore, 'http_requests_total', created)).toBe(1);
    expect(issuesAfter.flatMap((replica) => replica.get('http_requests_total') ?? []).every((s) => s.labels.service === 'issues')).toBe(true);

    // The event: published by the issues outbox with the request id in its header and envelope.
    const published = await pollUntil(
      async () => seen.find((m) => m.properties.headers?.['x-request-id'] === rid),
      (m) => m !== undefined,
    );
    expect(published).toBeDefined();
    const envelope = JSON.parse(published!.content.toString('utf8'));
    expect(envelope).toMatchObject({ type: 'issue.created', request_id: rid, data: { issue: { key: res.body.key } } });
    const issuesRelayed = await pollUntil(
      () => scrapeAll('issues'),
      (m) => total(m, 'tracker_outbox_published_total') > total(issuesBefore, 'tracker_outbox_published_total') && total(m, 'tracker_outbox_backlog_events') === 0,
    );
    // Each replica reads the one outbox table.
    for (const replica of issuesRelayed) {
      expect(total(replica, 'tracker_outbox_backlog_events')).toBe(0);
      expect(replica.get('tracker_outbox_oldest_age_seconds')?.[0]?.value).toBe(0);
    }

    // Consumed and applied by statistics (one of the competing consumers): an acked delivery, nothing waiting, nothing dead.
    const statisticsAfter = await pollUntil(
      () => scrapeAll('statistics'),
      (m) => total(m, 'tracker_consumer_deliveries_total', acked) > total(statisticsBefore, 'tracker_consumer_deliveries_total', acked),
    );
    expect(total(statisticsAfter, 'tracker_consumer_deliveries_total', acked)).toBeGreaterThan(total(statisticsBefore, 'tracker_consumer_deliveries_total', acked));
    const queue = system.serviceEnv.EVENTS_QUEUE!;
    for (const replica of statisticsAfter) {
      expect(replica.get('tracker_consumer_lag_messages')).toEqual([{ labels: { queue, service: 'statistics' }, value: expect.any(Number) }]);
      expect(total(replica, 'tracker_consumer_dead_letter_messages', { queue })).toBe(0);
      expect(total(replica, 'tracker_consumer_dead_letters_total')).toBe(0);
      expect(total(replica, 'tracker_replica_built')).toBe(1);
      const age = replica.get('tracker_replica_as_of_age_seconds')?.[0]?.value;
      expect(age).toBeGreaterThanOrEqual(0);
      expect(age).toBeLessThan(60);
    }

    // The logs: the gateway and the issues service (the replicas that served it) logged the request under its id.
    expect(outputOf('gateway')).toContain(`"rid":"${rid}"`);
    expect(outputOf('issues')).toContain(`"rid":"${rid}"`);
  });

  test('when a client asks the public port for /metrics, then it is not there: metrics have their own listener', async () => {
    const res = await system.api('GET', '/metrics');
    expect(res.status).toBe(404);
    const withToken = await system.api('GET', '/api/v1/metrics', { token: ws.admin.token });
    expect(withToken.status).toBe(404);
    expect((await fetch(`${system.services.gateway.metricsUrl}/metrics`)).status).toBe(200);
  });

  test('when a path no service owns is requested, then the gateway counts it as one unmatched route, not one series per path', async () => {
    const before = await scrapeAll('gateway');
    for (const junk of ['/api/v1/a1', '/api/v1/b2/c3']) await system.api('GET', junk, { token: ws.admin.token });
    // Any other GET is a web page's (the web service answers 404 for a path that is no page): one label too.
    for (const page of ['/nowhere', '/nowhere/else']) await system.api('GET', page);
    const after = await scrapeAll('gateway');
    expect(total(after, 'http_requests_total', { route: 'unmatched' }) - total(before, 'http_requests_total', { route: 'unmatched' })).toBe(2);
    expect(total(after, 'http_requests_total', { route: 'web' }) - total(before, 'http_requests_total', { route: 'web' })).toBe(2);
    const routes = new Set(after.flatMap((replica) => replica.get('http_requests_total') ?? []).map((s) => s.labels.route));
    for (const route of routes) expect(route === 'unmatched' || route === 'web' || route!.startsWith('/api/v1/')).toBe(true);
  });
});
