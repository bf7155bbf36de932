import { Webhook as StandardWebhook } from 'standardwebhooks';
import { verifyWebhook } from '@tracker/client/webhooks';
import { startFakeUpstream, type UpstreamRequest } from '@tracker/testing';
import { pollUntil, seedWorkspace, startService, startSystem, type System } from '@tracker/system-tests-support';

/**
 * Webhooks end to end: a workspace admin subscribes through the gateway, people write
 * through the gateway, and real receivers on 127.0.0.1 get the events from the
 * notifications service, signed (checked by the standardwebhooks package and by our client's
 * verifier) and retried with the same webhook-id. Run again with two replicas of every
 * service by tests/e2e-replicated: each attempt still arrives once.
 */
let system: System;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;
let queueId: number;
beforeAll(async () => {
  system = await startSystem({ notificationsEnv: { WEBHOOK_RETRY_SCHEDULE: '1,1,1', WEBHOOK_POLL_INTERVAL_MS: '50', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_CONCURRENCY_PER_ENDPOINT: '2' } });
  ws = await seedWorkspace(system, 'Hooks');
  queueId = (await api('POST', '/api/v1/queues', { key: 'HOOK', name: 'Hooks' })).id;
}, 120_000);
const receivers: Array<{ close: () => Promise<void> }> = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await system?.stop();
});

const api = async (method: string, path: string, body?: unknown, token = ws.admin.token) => {
  const res = await system.api(method, path, { token, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

/** A receiver on 127.0.0.1 answering each request with `answer(n)` (n counts its requests from 1); 'hang' never answers. */
async function receiver(answer: (n: number) => number | 'hang' = () => 200) {
  const upstream = await startFakeUpstream((_request, res) => {
    const status = answer(upstream.requests.length);
    if (status !== 'hang') res.writeHead(status).end();
  });
  const r = {
    url: `${upstream.url}/tracker`,
    received: upstream.requests,
    ids: () => upstream.requests.map((x) => x.headers['webhook-id'] as string),
    close: upstream.close,
  };
  receivers.push(r);
  return r;
}

const subscribe = (url: string, events: string[] = ['*']) => api('POST', '/api/v1/webhooks', { url, events, queue_ids: [queueId] }) as Promise<{ id: number; secret: string }>;
const newIssue = (title: string) => api('POST', '/api/v1/issues', { queue_id: queueId, title }) as Promise<{ id: number; key: string; version: number }>;
const received = (r: { received: UpstreamRequest[] }, count: number, timeoutMs = 20_000) => pollUntil(async () => r.received.length, (n) => n >= count, timeoutMs);
const typeOf = (x: UpstreamRequest) => (JSON.parse(x.body) as { type: string }).type;

describe('webhooks through the gateway', () => {
  test('writes arrive as signed events: standardwebhooks and the client both verify them, and the body is the event of the feed', async () => {
    const r = await receiver();
    const hook = await subscribe(r.url, ['issue.*', 'comment.added']);
    const issue = await newIssue('Signed');
    await api('POST', `/api/v1/issues/${issue.key}/comments`, { body: 'A comment' });
    await received(r, 2);
    expect(r.received.map(typeOf).sort()).toEqual(['comment.added', 'issue.created']);
    for (const got of r.received) {
      const standard = new StandardWebhook(hook.secret).verify(got.body, got.headers as Record<string, string>) as { id: string };
      expect(standard.id).toBe(got.headers['webhook-id']);
      expect(verifyWebhook(hook.secret, got.headers, got.body).id).toBe(got.headers['webhook-id']);
      expect(() => verifyWebhook(hook.secret, got.headers, got.body.replace('"id":', '"id" :'))).toThrow();
    }
    // The same event, by id, in the feed.
    const created = r.received.find((x) => typeOf(x) === 'issue.created')!;
    const feed = await pollUntil(() => api('GET', '/api/v1/events?types=issue.created&limit=500'), (page) => page.items.some((e: { id: string }) => e.id === created.headers['webhook-id']));
    expect(feed.items.find((e: { id: string }) => e.id === created.headers['webhook-id'])).toEqual(JSON.parse(created.body));
    const log = await api('GET', `/api/v1/webhooks/${hook.id}/deliveries?status=succeeded`);
    expect(log.items).toHaveLength(2);
  });

  test('a failing endpoint gets the retries with the same webhook-id until it answers 2xx; each delivery arrives once when it succeeds', async () => {
    const r = await receiver((n) => (n <= 2 ? 500 : 200));
    const hook = await subscribe(r.url, ['issue.created']);
    await newIssue('Retried');
    await received(r, 3);
    expect(new Set(r.ids()).size).toBe(1);
    const log = await pollUntil(() => api('GET', `/api/v1/webhooks/${hook.id}/deliveries`), (page) => page.items[0]?.status === 'succeeded');
    expect(log.items[0]).toMatchObject({ status: 'succeeded', attempt_count: 3 });
    expect(log.items[0].attempts.map((a: { status_code: number }) => a.status_code)).toEqual([200, 500, 500]);

    // Many writes at once: each arrives exactly once (on two replicas too).
    const many = await receiver();
    await subscribe(many.url, ['issue.created']);
    const issues = await Promise.all(Array.from({ length: 30 }, (_, i) => newIssue(`Burst ${i}`)));
    await received(many, 30);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(many.received).toHaveLength(30);
    expect(many.received.map((x) => JSON.parse(x.body).data.issue.key).sort()).toEqual(issues.map((i) => i.key).sort());
  });

  test('a dead endpoint does not delay another webhook\'s deliveries', async () => {
    const dead = await receiver(() => 'hang');
    const alive = await receiver();
    await subscribe(dead.url, ['issue.created']);
    await subscribe(alive.url, ['issue.created']);
    const issues = await Promise.all(Array.from({ length: 8 }, (_, i) => newIssue(`Beside a dead one ${i}`)));
    await received(alive, 8, 10_000);
    expect(alive.received.map((x) => JSON.parse(x.body).data.issue.key).sort()).toEqual(issues.map((i) => i.key).sort());
  });

  test('a restart of the notifications service mid-retry loses nothing: the retry comes after it, with the same webhook-id', async () => {
    let up = false;
    const r = await receiver(() => (up ? 200 : 503));
    const hook = await subscribe(r.url, ['issue.created']);
    await newIssue('Across a restart');
    await received(r, 1);
    // Every replica stops (SIGTERM: they finish what they attempt), and comes back on its port.
    const replicas = system.instances('notifications');
    await Promise.all(replicas.map((p) => p.stop()));
    up = true;
    const restarted = await Promise.all(replicas.map((p) => startService('notifications', system.notificationsEnv, { port: p.port })));
    [system.services.notifications, system.replicas.notifications] = [restarted[0]!, restarted.slice(1)];
    const log = await pollUntil(() => api('GET', `/api/v1/webhooks/${hook.id}/deliveries`), (page) => page.items[0]?.status === 'succeeded', 20_000);
    expect(log.items[0]).toMatchObject({ status: 'succeeded' });
    expect(new Set(r.ids()).size).toBe(1);
    expect(r.received.length).toBe(log.items[0].attempt_count);
  });

  test('a member may not subscribe: 403, and nothing is made', async () => {
    const res = await system.api('POST', '/api/v1/webhooks', { token: ws.member.token, body: { url: 'http://127.0.0.1:9/x', events: ['*'] } });
    expect([res.status, res.body.code]).toEqual([403, 'forbidden']);
  });
});
