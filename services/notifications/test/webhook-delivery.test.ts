import { Webhook as StandardWebhook } from 'standardwebhooks';
import { startFakeUpstream } from '@tracker/testing';
import type { Delivery, WebhookCreated } from '@tracker/contracts';
import { events, issueState, queueState, userState } from './fixtures';
import { eventually, sleep, startNotifications, type Member, type NotificationsHarness } from './harness';

/**
 * The delivery worker against real receivers on 127.0.0.1 (allowed for the test), with a
 * retry schedule of 1 s and 1 s: what is delivered, how it is signed, retried, given up,
 * switched off, and that two workers never send an attempt twice at once.
 */
/** An endpoint answering each request with `answer(n)` (n: its requests so far, from 1); `hang` never answers. */
async function receiver(answer: (n: number) => number | 'hang' = () => 204) {
  let open = 0;
  let mostOpen = 0;
  const upstream = await startFakeUpstream((_request, res) => {
    const status = answer(upstream.requests.length);
    if (status === 'hang') {
      mostOpen = Math.max(mostOpen, ++open);
      res.on('close', () => open--);
      return;
    }
    res.writeHead(status).end();
  });
  return {
    url: `${upstream.url}/hook`,
    received: upstream.requests,
    ids: () => upstream.requests.map((r) => r.headers['webhook-id'] as string),
    mostOpen: () => mostOpen,
    close: upstream.close,
  };
}

let h: NotificationsHarness;
const receivers: Array<{ close: () => Promise<void> }> = [];
beforeAll(async () => {
  h = await startNotifications({
    delivering: true,
    env: { WEBHOOK_ALLOWED_TARGETS: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: '1,1', WEBHOOK_POLL_INTERVAL_MS: '20', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_CONCURRENCY_PER_ENDPOINT: '2' },
  });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await h.close();
});

async function endpoint(answer?: (n: number) => number | 'hang') {
  const r = await receiver(answer);
  receivers.push(r);
  return r;
}

async function webhook(as: Member, url: string, body: Record<string, unknown> = {}) {
  const res = await h.call('POST', '/api/v1/webhooks', { as, body: { url, events: ['*'], ...body } });
  expect(res.status).toBe(201);
  return res.body as WebhookCreated;
}

const deliveries = async (as: Member, id: number, query = '') => (await h.call('GET', `/api/v1/webhooks/${id}/deliveries${query}`, { as })).body.items as Delivery[];
const webhookOf = async (as: Member, id: number) => (await h.call('GET', `/api/v1/webhooks/${id}`, { as })).body;

describe('delivering events', () => {
  test('a recorded event is POSTed once, its body the public event, signed so that the standardwebhooks verifier accepts it', async () => {
    const ws = h.workspace();
    const r = await endpoint();
    const hook = await webhook(ws.admin, r.url);
    const created = events.issueCreated(issueState(queueState(ws.id)));
    await h.record([created]);
    await eventually(async () => expect(r.received).toHaveLength(1));
    const [got] = r.received;
    expect(got!.headers['webhook-id']).toBe(created.event_id);
    expect(got!.headers['content-type']).toBe('application/json');
    const verified = new StandardWebhook(hook.secret).verify(got!.body, got!.headers as Record<string, string>) as { id: string; type: string; data: { issue: { key: string } } };
    expect([verified.id, verified.type, verified.data.issue.key]).toEqual([created.event_id, 'issue.created', created.data.issue.key]);
    // Another secret does not verify it.
    const other = await webhook(ws.admin, r.url, { events: ['user.*'] });
    expect(() => new StandardWebhook(other.secret).verify(got!.body, got!.headers as Record<string, string>)).toThrow();
    await eventually(async () => expect((await deliveries(ws.admin, hook.id))[0]).toMatchObject({ status: 'succeeded', attempt_count: 1, attempts: [{ status_code: 204, error: null }] }));
    await sleep(200);
    expect(r.received).toHaveLength(1);
  });

  test('only the events a webhook selects, of its queues, and none of another workspace, nor before it existed or while inactive', async () => {
    const ws = h.workspace();
    const [a, b] = [queueState(ws.id), queueState(ws.id)];
    await h.record([events.issueCreated(issueState(a))]);
    const r = await endpoint();
    const hook = await webhook(ws.admin, r.url, { events: ['issue.updated', 'comment.*'], queue_ids: [a.id] });
    const issueA = issueState(a);
    const selected = [events.commentAdded(issueA, 'yes'), events.issueUpdated({ ...issueA, title: 'T', version: 2 }, [{ field: 'title', from: issueA.title, to: 'T' }])];
    await h.record([
      events.issueCreated(issueState(a)),
      events.commentAdded(issueState(b), 'other queue'),
      events.userCreated(ws.id, userState({ id: 9_000_001, name: 'Nobody' })),
      events.commentAdded(issueState(queueState(h.workspace().id)), 'other workspace'),
      ...selected,
    ]);
    await eventually(async () => expect(r.ids().sort()).toEqual(selected.map((e) => e.event_id).sort()));
    await h.call('PATCH', `/api/v1/webhooks/${hook.id}`, { as: ws.admin, body: { active: false } });
    await h.record([events.commentAdded(issueA, 'while off')]);
    await h.call('PATCH', `/api/v1/webhooks/${hook.id}`, { as: ws.admin, body: { active: true } });
    const after = events.commentAdded(issueA, 'back on');
    await h.record([after]);
    await eventually(async () => expect(r.ids()).toContain(after.event_id));
    expect(r.received).toHaveLength(3);
  });

  test('an event recorded twice (redelivered by the broker) is delivered once', async () => {
    const ws = h.workspace();
    const r = await endpoint();
    await webhook(ws.admin, r.url);
    const e = events.issueCreated(issueState(queueState(ws.id)));
    await h.record([e]);
    await h.record([e]);
    await eventually(async () => expect(r.received).toHaveLength(1));
    await sleep(300);
    expect(r.received).toHaveLength(1);
  });
});

describe('retries', () => {
  test('a failed delivery is retried on the schedule with the same webhook-id and body, each attempt freshly signed, until it succeeds', async () => {
    const ws = h.workspace();
    const r = await endpoint((n) => (n < 3 ? 503 : 200));
    const hook = await webhook(ws.admin, r.url);
    const e = events.issueCreated(issueState(queueState(ws.id)));
    await h.record([e]);
    await eventually(async () => expect(r.received).toHaveLength(3), 10_000);
    expect(new Set(r.ids())).toEqual(new Set([e.event_id]));
    expect(new Set(r.received.map((x) => x.body)).size).toBe(1);
    for (const got of r.received) expect(() => new StandardWebhook(hook.secret).verify(got.body, got.headers as Record<string, string>)).not.toThrow();
    // The retries waited about a second each (the schedule, with its jitter of a fifth).
    expect(r.received[1]!.at - r.received[0]!.at).toBeGreaterThanOrEqual(750);
    expect(r.received[2]!.at - r.received[1]!.at).toBeGreaterThanOrEqual(750);
    const [log] = await eventually(async () => {
      const items = await deliveries(ws.admin, hook.id);
      expect(items[0]!.status).toBe('succeeded');
      return items;
    });
    expect(log!.attempts.map((a) => [a.status_code, a.error])).toEqual([
      [200, null],
      [503, 'The endpoint answered 503.'],
      [503, 'The endpoint answered 503.'],
    ]);
    expect((await webhookOf(ws.admin, hook.id)).active).toBe(true);
  });

  test('when the schedule runs out the delivery fails and the webhook is disabled with a reason; later events are not queued', async () => {
    const ws = h.workspace();
    const r = await endpoint(() => 500);
    const hook = await webhook(ws.admin, r.url);
    await h.record([events.issueCreated(issueState(queueState(ws.id)))]);
    await eventually(async () => expect(await webhookOf(ws.admin, hook.id)).toMatchObject({ active: false, disabled_reason: expect.stringContaining('failed all of its 3 attempts') }), 10_000);
    expect(r.received).toHaveLength(3);
    expect((await deliveries(ws.admin, hook.id))[0]).toMatchObject({ status: 'failed', attempt_count: 3, next_attempt_at: null });
    await h.record([events.issueCreated(issueState(queueState(ws.id)))]);
    await sleep(300);
    expect(await deliveries(ws.admin, hook.id)).toHaveLength(1);
    expect(r.received).toHaveLength(3);
  });

  test('a 410 disables the webhook at once; its pending deliveries wait, and go on when it is switched on again', async () => {
    const ws = h.workspace();
    let gone = true;
    const r = await endpoint(() => (gone ? 410 : 200));
    const hook = await webhook(ws.admin, r.url);
    const first = events.issueCreated(issueState(queueState(ws.id)));
    await h.record([first]);
    await eventually(async () => expect(await webhookOf(ws.admin, hook.id)).toMatchObject({ active: false, disabled_reason: expect.stringContaining('410') }));
    expect(r.received).toHaveLength(1);
    expect((await deliveries(ws.admin, hook.id))[0]).toMatchObject({ status: 'failed', attempt_count: 1 });

    // A delivery still pending from before (queued while active) waits while the webhook is off.
    gone = false;
    const failed = (await deliveries(ws.admin, hook.id))[0]!;
    const retried = await h.call('POST', `/api/v1/webhooks/${hook.id}/deliveries/${failed.id}/retry`, { as: ws.admin });
    expect(retried.body).toMatchObject({ status: 'pending' });
    // A manual retry is sent even while the webhook is inactive, with the same webhook-id.
    await eventually(async () => expect(r.ids()).toEqual([first.event_id, first.event_id]));
    await eventually(async () => expect((await deliveries(ws.admin, hook.id))[0]).toMatchObject({ status: 'succeeded', attempt_count: 2 }));
    expect((await webhookOf(ws.admin, hook.id)).active).toBe(false);
  });

  test('a ping is one attempt: a failure is recorded, not retried, and does not disable the webhook', async () => {
    const ws = h.workspace();
    const r = await endpoint(() => 500);
    const hook = await webhook(ws.admin, r.url);
    const ping = (await h.call('POST', `/api/v1/webhooks/${hook.id}/ping`, { as: ws.admin })).body as Delivery;
    await eventually(async () => expect((await deliveries(ws.admin, hook.id))[0]).toMatchObject({ id: ping.id, status: 'failed', attempt_count: 1 }));
    await sleep(1500);
    expect(r.received).toHaveLength(1);
    expect(JSON.parse(r.received[0]!.body)).toEqual({ id: ping.event_id, type: 'webhook.ping', timestamp: expect.any(String), workspace_id: ws.id, data: { webhook_id: hook.id } });
    expect((await webhookOf(ws.admin, hook.id)).active).toBe(true);
  });
});

describe('endpoints apart', () => {
  test('a dead endpoint holds at most its own few attempts; another webhook\'s deliveries go on meanwhile', async () => {
    const ws = h.workspace();
    const dead = await endpoint(() => 'hang');
    const alive = await endpoint();
    await webhook(ws.admin, dead.url);
    const queue = queueState(ws.id);
    const firstBatch = Array.from({ length: 10 }, () => events.issueCreated(issueState(queue)));
    await h.record(firstBatch);
    await eventually(async () => expect(dead.received.length).toBeGreaterThanOrEqual(2));
    await webhook(ws.admin, alive.url);
    const secondBatch = Array.from({ length: 10 }, () => events.issueCreated(issueState(queue)));
    await h.record(secondBatch);
    // The live endpoint gets all ten while the dead one's attempts still hang (each 1 s here).
    await eventually(async () => expect(alive.ids().sort()).toEqual(secondBatch.map((e) => e.event_id).sort()));
    expect(dead.mostOpen()).toBeLessThanOrEqual(2);
  });

  test('two workers sharing the queue send each attempt once', async () => {
    const second = h.service.startDelivering();
    try {
      const ws = h.workspace();
      const r = await endpoint();
      await webhook(ws.admin, r.url);
      await webhook(ws.admin, r.url, { events: ['issue.*'] });
      const batch = Array.from({ length: 60 }, () => events.issueCreated(issueState(queueState(ws.id))));
      for (let i = 0; i < batch.length; i += 6) await h.record(batch.slice(i, i + 6));
      await eventually(async () => expect(r.received).toHaveLength(120));
      await sleep(300);
      expect(r.received).toHaveLength(120);
      const perId = new Map<string, number>();
      for (const id of r.ids()) perId.set(id, (perId.get(id) ?? 0) + 1);
      expect([...perId.values()].every((n) => n === 2)).toBe(true);
    } finally {
      await second.stop();
    }
  });

  test('a claim whose worker died lapses, and then another worker sends the attempt, once', async () => {
    // Its own service without a worker, so the claim below is surely the first.
    const quiet = await startNotifications({ env: { WEBHOOK_ALLOWED_TARGETS: '127.0.0.1', WEBHOOK_POLL_INTERVAL_MS: '20', WEBHOOK_TIMEOUT_MS: '1000' } });
    try {
      const ws = quiet.workspace();
      const r = await endpoint();
      const hook = (await quiet.call('POST', '/api/v1/webhooks', { as: ws.admin, body: { url: r.url, events: ['*'] } })).body as WebhookCreated;
      const ping = (await quiet.call('POST', `/api/v1/webhooks/${hook.id}/ping`, { as: ws.admin })).body as Delivery;
      const claimedAt = Date.now();
      const claimed = await quiet.service.deps.deliveries.claim({ limit: 10, perEndpoint: 10, leaseMs: 1500 });
      expect(claimed.map((c) => c.id)).toEqual([ping.id]);
      // The claimer "dies" here: it never sends nor finishes. A worker started now waits for the lease to lapse.
      const worker = quiet.service.startDelivering();
      try {
        await eventually(async () => expect(r.ids()).toEqual([ping.event_id]), 10_000);
        expect(r.received[0]!.at - claimedAt).toBeGreaterThanOrEqual(1400);
        await sleep(300);
        expect(r.received).toHaveLength(1);
      } finally {
        await worker.stop();
      }
    } finally {
      await quiet.close();
    }
  });
});
