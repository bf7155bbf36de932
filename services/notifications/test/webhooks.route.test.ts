import { Delivery, DeliveryPage, Webhook, WEBHOOK_LIMITS, WebhookCreated } from '@tracker/contracts';
import { problem, startNotifications, type Member, type NotificationsHarness } from './harness';

/** /api/v1/webhooks: managed by workspace admins; URLs checked against the targets allowed (here none: 127.0.0.1 is refused like any loopback). */
let h: NotificationsHarness;
beforeAll(async () => {
  h = await startNotifications();
});
afterAll(() => h.close());

const URL_OK = 'http://93.184.215.14/hooks'; // a public address: checked without DNS
const create = (as: Member, body: unknown) => h.call('POST', '/api/v1/webhooks', { as, body });
const patch = (as: Member, id: number, body: unknown) => h.call('PATCH', `/api/v1/webhooks/${id}`, { as, body });

async function made(as: Member, body: Record<string, unknown> = {}) {
  const res = await create(as, { url: URL_OK, events: ['issue.*'], ...body });
  expect([res.status, res.body.code]).toEqual([201, undefined]);
  return res.body as WebhookCreated;
}

describe('managing webhooks', () => {
  test('an admin creates one and is shown its secret once; lists and reads never show it, nor does the database hold it in the clear', async () => {
    const ws = h.workspace();
    const res = await create(ws.admin, { url: URL_OK, events: ['issue.*', 'comment.added'], queue_ids: [7], description: 'CRM' });
    expect(res.status).toBe(201);
    expect(WebhookCreated.parse(res.body)).toEqual(res.body);
    expect(res.body).toMatchObject({ url: URL_OK, events: ['issue.*', 'comment.added'], queue_ids: [7], description: 'CRM', active: true, disabled_reason: null });
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const list = await h.call('GET', '/api/v1/webhooks', { as: ws.admin });
    const { secret, ...listed } = res.body;
    expect([list.status, list.body]).toEqual([200, [listed]]);
    expect(Webhook.array().parse(list.body)).toEqual(list.body);
    const one = await h.call('GET', `/api/v1/webhooks/${res.body.id}`, { as: ws.admin });
    expect([one.status, one.body]).toEqual([200, listed]);

    const stored = await h.schema.query<{ secret_sealed: string }>('SELECT secret_sealed FROM webhooks WHERE id = $1', [res.body.id]);
    expect(stored[0]!.secret_sealed).not.toContain(secret.slice('whsec_'.length, 20));
    expect(stored[0]!.secret_sealed).not.toContain(secret);
  });

  test('absent queue_ids and description read as null; every webhook gets its own secret', async () => {
    const ws = h.workspace();
    const [a, b] = [await made(ws.admin), await made(ws.admin)];
    expect([a.queue_ids, a.description]).toEqual([null, null]);
    expect(a.secret).not.toBe(b.secret);
  });

  test('a member is 403 on every operation; another workspace\'s webhook is 404 to its admin', async () => {
    const ws = h.workspace();
    const hook = await made(ws.admin);
    const member = h.member(ws.id);
    for (const [method, path] of [
      ['GET', '/api/v1/webhooks'],
      ['GET', `/api/v1/webhooks/${hook.id}`],
      ['DELETE', `/api/v1/webhooks/${hook.id}`],
      ['GET', `/api/v1/webhooks/${hook.id}/deliveries`],
      ['POST', `/api/v1/webhooks/${hook.id}/ping`],
    ] as const) {
      const res = await h.call(method, path, { as: member });
      expect([method, path, res.status, res.body]).toEqual([method, path, 403, problem(403, 'forbidden')]);
    }
    expect((await create(member, { url: URL_OK, events: ['*'] })).status).toBe(403);
    expect((await patch(member, hook.id, { active: false })).status).toBe(403);

    const other = h.workspace();
    for (const [method, path] of [
      ['GET', `/api/v1/webhooks/${hook.id}`],
      ['DELETE', `/api/v1/webhooks/${hook.id}`],
      ['GET', `/api/v1/webhooks/${hook.id}/deliveries`],
      ['POST', `/api/v1/webhooks/${hook.id}/ping`],
      ['POST', `/api/v1/webhooks/${hook.id}/deliveries/1/retry`],
    ] as const) {
      const res = await h.call(method, path, { as: other.admin });
      expect([method, path, res.status, res.body]).toEqual([method, path, 404, problem(404, 'not_found')]);
    }
    expect((await patch(other.admin, hook.id, { active: false })).status).toBe(404);
    expect((await h.call('GET', '/api/v1/webhooks', { as: other.admin })).body).toEqual([]);
    // Nothing changed.
    expect((await h.call('GET', `/api/v1/webhooks/${hook.id}`, { as: ws.admin })).body.active).toBe(true);
  });

  test('PATCH changes what is given; switching off says who did, switching on clears it', async () => {
    const ws = h.workspace();
    const hook = await made(ws.admin, { description: 'x' });
    const changed = await patch(ws.admin, hook.id, { events: ['*'], queue_ids: [3, 4], description: null, url: 'https://93.184.215.14/other' });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ events: ['*'], queue_ids: [3, 4], description: null, url: 'https://93.184.215.14/other', active: true });
    const off = await patch(ws.admin, hook.id, { active: false });
    expect(off.body).toMatchObject({ active: false, disabled_reason: expect.stringContaining(`user ${ws.admin.id}`) });
    const on = await patch(ws.admin, hook.id, { active: true, queue_ids: null });
    expect(on.body).toMatchObject({ active: true, disabled_reason: null, queue_ids: null, events: ['*'] });
  });

  test('DELETE removes it: 200, then 404', async () => {
    const ws = h.workspace();
    const hook = await made(ws.admin);
    const res = await h.call('DELETE', `/api/v1/webhooks/${hook.id}`, { as: ws.admin });
    expect([res.status, res.body]).toEqual([200, { id: hook.id, deleted: true }]);
    expect((await h.call('DELETE', `/api/v1/webhooks/${hook.id}`, { as: ws.admin })).status).toBe(404);
    expect((await h.call('GET', `/api/v1/webhooks/${hook.id}`, { as: ws.admin })).status).toBe(404);
  });

  test.each([
    ['an unknown type', { url: URL_OK, events: ['issue.deleted'] }, 'events.0'],
    ['a pattern selecting nothing', { url: URL_OK, events: ['task.*'] }, 'events.0'],
    ['no events', { url: URL_OK, events: [] }, 'events'],
    ['an empty queue list', { url: URL_OK, events: ['*'], queue_ids: [] }, 'queue_ids'],
    ['a queue id that is not one', { url: URL_OK, events: ['*'], queue_ids: [0] }, 'queue_ids.0'],
    ['an unknown field', { url: URL_OK, events: ['*'], secret: 'mine' }, 'secret'],
    ['no url', { events: ['*'] }, 'url'],
    ['an ftp url', { url: 'ftp://93.184.215.14/x', events: ['*'] }, 'url'],
    ['a url with a password', { url: 'https://user:pw@93.184.215.14/x', events: ['*'] }, 'url'],
    ['not a url', { url: 'hooks here', events: ['*'] }, 'url'],
    ['a loopback address', { url: 'http://127.0.0.1:9/x', events: ['*'] }, 'url'],
    ['an IPv6 loopback', { url: 'http://[::1]/x', events: ['*'] }, 'url'],
    ['a private address', { url: 'http://10.1.2.3/x', events: ['*'] }, 'url'],
    ['a link-local address', { url: 'http://169.254.10.1/x', events: ['*'] }, 'url'],
    ['the metadata address', { url: 'http://169.254.169.254/latest/meta-data', events: ['*'] }, 'url'],
    ['a multicast address', { url: 'http://224.0.0.1/x', events: ['*'] }, 'url'],
    ['a mapped loopback', { url: 'http://[::ffff:127.0.0.1]/x', events: ['*'] }, 'url'],
    ['localhost by name', { url: 'http://localhost:8080/x', events: ['*'] }, 'url'],
    ['a description too long', { url: URL_OK, events: ['*'], description: 'x'.repeat(WEBHOOK_LIMITS.descriptionMax + 1) }, 'description'],
  ])('creating with %s is 422 naming the field, and makes nothing', async (_what, body, path) => {
    const ws = h.workspace();
    const res = await create(ws.admin, body);
    expect([res.status, res.body]).toEqual([422, problem(422, 'validation_failed')]);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect((await h.call('GET', '/api/v1/webhooks', { as: ws.admin })).body).toEqual([]);
  });

  test('a refused URL on PATCH is 422 naming url and changes nothing', async () => {
    const ws = h.workspace();
    const hook = await made(ws.admin);
    const res = await patch(ws.admin, hook.id, { url: 'http://192.168.1.1/x', description: 'changed' });
    expect([res.status, res.body.errors]).toEqual([422, [{ path: 'url', message: expect.stringContaining('192.168.1.1') }]]);
    expect((await h.call('GET', `/api/v1/webhooks/${hook.id}`, { as: ws.admin })).body).toMatchObject({ url: URL_OK, description: null });
  });

  test(`a workspace holds at most ${WEBHOOK_LIMITS.perWorkspace}, even when they are asked for at once`, async () => {
    const ws = h.workspace();
    const answers = await Promise.all(Array.from({ length: WEBHOOK_LIMITS.perWorkspace + 3 }, () => create(ws.admin, { url: URL_OK, events: ['*'] })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(WEBHOOK_LIMITS.perWorkspace);
    for (const a of answers.filter((x) => x.status !== 201)) expect(a.body).toEqual(problem(422, 'validation_failed'));
    expect((await h.call('GET', '/api/v1/webhooks', { as: ws.admin })).body).toHaveLength(WEBHOOK_LIMITS.perWorkspace);
  });

  test.each([
    ['GET', '/api/v1/webhooks/0'],
    ['GET', '/api/v1/webhooks/abc'],
    ['GET', '/api/v1/webhooks/99999999999'],
    ['POST', '/api/v1/webhooks/1/deliveries/0/retry'],
    ['POST', '/api/v1/webhooks/1/deliveries/x/retry'],
    ['POST', '/api/v1/webhooks/1/deliveries/99999999999999999/retry'],
  ])('%s %s: a path id that is not one is 422', async (method, path) => {
    const ws = h.workspace();
    const res = await h.call(method, path, { as: ws.admin });
    expect([res.status, res.body]).toEqual([422, problem(422, 'validation_failed')]);
  });
});

describe('the delivery log, ping and retry', () => {
  test('a ping is a pending delivery of a webhook.ping event, listed newest first; the status filter and pages hold', async () => {
    const ws = h.workspace();
    const hook = await made(ws.admin);
    const pings: Delivery[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await h.call('POST', `/api/v1/webhooks/${hook.id}/ping`, { as: ws.admin });
      expect(res.status).toBe(201);
      expect(Delivery.parse(res.body)).toEqual(res.body);
      expect(res.body).toMatchObject({ event_type: 'webhook.ping', status: 'pending', attempt_count: 0, attempts: [] });
      pings.push(res.body);
    }
    const log = await h.call('GET', `/api/v1/webhooks/${hook.id}/deliveries`, { as: ws.admin });
    expect(DeliveryPage.parse(log.body)).toEqual(log.body);
    expect(log.body.items.map((d: Delivery) => d.id)).toEqual(pings.map((p) => p.id).reverse());

    const first = await h.call('GET', `/api/v1/webhooks/${hook.id}/deliveries?limit=2`, { as: ws.admin });
    expect(first.body.items.map((d: Delivery) => d.id)).toEqual([pings[2]!.id, pings[1]!.id]);
    expect(first.body.next_before_id).toBe(pings[1]!.id);
    const second = await h.call('GET', `/api/v1/webhooks/${hook.id}/deliveries?limit=2&before_id=${first.body.next_before_id}`, { as: ws.admin });
    expect([second.body.items.map((d: Delivery) => d.id), second.body.next_before_id]).toEqual([[pings[0]!.id], null]);

    expect((await h.call('GET', `/api/v1/webhooks/${hook.id}/deliveries?status=pending`, { as: ws.admin })).body.items).toHaveLength(3);
    expect((await h.call('GET', `/api/v1/webhooks/${hook.id}/deliveries?status=failed`, { as: ws.admin })).body.items).toEqual([]);
  });

  test('retrying a delivery of another webhook, or none, is 404', async () => {
    const ws = h.workspace();
    const [a, b] = [await made(ws.admin), await made(ws.admin)];
    const ping = (await h.call('POST', `/api/v1/webhooks/${a.id}/ping`, { as: ws.admin })).body as Delivery;
    expect((await h.call('POST', `/api/v1/webhooks/${b.id}/deliveries/${ping.id}/retry`, { as: ws.admin })).body).toEqual(problem(404, 'not_found'));
    expect((await h.call('POST', `/api/v1/webhooks/${a.id}/deliveries/${ping.id + 1000}/retry`, { as: ws.admin })).status).toBe(404);
    const retried = await h.call('POST', `/api/v1/webhooks/${a.id}/deliveries/${ping.id}/retry`, { as: ws.admin });
    expect([retried.status, retried.body.id, retried.body.status]).toEqual([200, ping.id, 'pending']);
  });

  test('a ping or retry with a body field is 422: they take none', async () => {
    const ws = h.workspace();
    const hook = await made(ws.admin);
    const res = await h.call('POST', `/api/v1/webhooks/${hook.id}/ping`, { as: ws.admin, body: { event: 'issue.created' } });
    expect([res.status, res.body.errors]).toEqual([422, [{ path: 'event', message: 'unknown field' }]]);
    expect((await h.call('POST', `/api/v1/webhooks/${hook.id}/ping`, { as: ws.admin, body: {} })).status).toBe(201);
    expect((await h.call('GET', `/api/v1/webhooks/${hook.id}/deliveries`, { as: ws.admin })).body.items).toHaveLength(1);
  });

  test.each([
    ['status=lost', 'status'],
    ['limit=0', 'limit'],
    [`limit=${WEBHOOK_LIMITS.pageMax + 1}`, 'limit'],
    ['limit=1e1', 'limit'],
    ['before_id=-1', 'before_id'],
    ['status=failed&status=pending', 'status'],
    ['cursor=1', 'cursor'],
  ])('the delivery log with %s is 422 naming %s', async (query, path) => {
    const ws = h.workspace();
    const hook = await made(ws.admin);
    const res = await h.call('GET', `/api/v1/webhooks/${hook.id}/deliveries?${query}`, { as: ws.admin });
    expect([res.status, res.body]).toEqual([422, problem(422, 'validation_failed')]);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });
});
