import { startFakeUpstream } from '@tracker/testing';
import { pollUntil, SERVICE_NAMES, seedWorkspace, startSystem, waitForOutput, type System } from '@tracker/system-tests-support';

let system: System;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;
beforeAll(async () => {
  system = await startSystem();
  ws = await seedWorkspace(system);
}, 60_000);
afterAll(() => system?.stop());

describe('routing', () => {
  test('when a path belongs to no service, then 404 for a valid token and 401 without one', async () => {
    for (const path of ['/api/v1/nope', '/api/v1', '/api/v2/me']) {
      const authed = await system.api('GET', path, { token: ws.member.token });
      expect(authed.status).toBe(404);
      expect(authed.body.code).toBe('not_found');
    }
    expect((await system.api('GET', '/api/v1/nope')).status).toBe(401);
  });

  test('when a GET is outside /api, /auth and /mcp, then the web pages answer it: a page, or 404 for a path that is no page', async () => {
    const home = await system.api('GET', '/', { headers: { accept: 'text/html' } });
    expect([home.status, home.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    const missing = await system.api('GET', '/no-such-page', { token: ws.member.token });
    expect([missing.status, missing.headers.get('content-type'), missing.body.code]).toEqual([404, 'application/problem+json', 'not_found']);
    expect((await system.api('POST', '/', { body: {} })).status).toBe(404);
  });

  test('when a method is not served on a known path, then 404 (never 405)', async () => {
    const res = await system.api('DELETE', '/api/v1/me', { token: ws.member.token });
    expect(res.status).toBe(404);
  });

  test('when the issues paths are called, then they reach the issues service', async () => {
    for (const path of ['/api/v1/queues', '/api/v1/statuses']) {
      const res = await system.api('GET', path, { token: ws.member.token });
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body)).toBe(true);
    }
    const missing = await system.api('GET', '/api/v1/issues/ABC-1', { token: ws.member.token });
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toMatch(/issue/i);
  });
});

describe('request ids and headers', () => {
  test('when no request id is sent, then one is set and echoed; a sent one is kept', async () => {
    const fresh = await system.api('GET', '/api/v1/me', { token: ws.member.token });
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const kept = await system.api('GET', '/api/v1/me', { token: ws.member.token, headers: { 'x-request-id': 'trace-42' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-42');
    // Access log lines are written as answers finish; give the pipes a moment. Replicated, any replica may have served it.
    expect(await waitForOutput(system.instances('access'), '"rid":"trace-42"')).toBe(true);
    expect(await waitForOutput(system.instances('gateway'), '"rid":"trace-42"')).toBe(true);
  });

  test('answers are not cacheable and do not name the framework', async () => {
    const res = await system.api('GET', '/api/v1/me', { token: ws.member.token });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  test('no log line carries a token', async () => {
    await system.api('GET', '/api/v1/me', { token: ws.member.token });
    for (const service of SERVICE_NAMES.flatMap(system.instances)) expect(service.output()).not.toContain(ws.member.token);
  });
});

describe('media types', () => {
  // JSON has no charset parameter (RFC 8259); contract tests compare Content-Type with the OpenAPI document literally.
  const typeOf = (res: { status: number; headers: Headers }) => ({ status: res.status, type: res.headers.get('content-type') });

  test('when a service answers JSON through the gateway, then exactly application/json, for a 200 and a 201', async () => {
    expect(typeOf(await system.api('GET', '/api/v1/me', { token: ws.member.token }))).toEqual({ status: 200, type: 'application/json' });
    // Another workspace's admin: the rate limit test below counts this file's admin's requests per minute.
    const own = await seedWorkspace(system);
    const created = await system.api('POST', '/api/v1/queues', { token: own.admin.token, body: { key: 'MEDIA', name: 'Media types' } });
    expect(typeOf(created)).toEqual({ status: 201, type: 'application/json' });
  });

  test('when a problem is answered, by a service or by the gateway itself, then exactly application/problem+json', async () => {
    expect(typeOf(await system.api('GET', '/api/v1/issues/NOPE-1', { token: ws.member.token }))).toEqual({ status: 404, type: 'application/problem+json' });
    expect(typeOf(await system.api('GET', '/api/v1/nope', { token: ws.member.token }))).toEqual({ status: 404, type: 'application/problem+json' });
    expect(typeOf(await system.api('GET', '/api/v1/me'))).toEqual({ status: 401, type: 'application/problem+json' });
  });

  test('when the OpenAPI document is asked for, then exactly application/json', async () => {
    const res = await system.api('GET', '/api/v1/openapi.json');
    expect(typeOf(res)).toEqual({ status: 200, type: 'application/json' });
    expect(res.body.openapi).toEqual(expect.any(String));
  });
});

describe('filters through the gateway: an empty id list selects nothing', () => {
  const LISTS = ['queue_ids', 'status_ids', 'assignee_ids'] as const;
  const NOTHING_COUNTED = { total: 0, truncated: false, progress: { open: 0, progress: 0, done: 0, total: 0, done_percent: 0 }, time: { estimate_minutes: 0, spent_minutes: 0 }, queues: [], assignees: [] };
  let queueId: number;
  // A workspace of its own: the rate limit test below counts the shared workspace's requests per token.
  let own: Awaited<ReturnType<typeof seedWorkspace>>;
  const search = (body: unknown) => system.api('POST', '/api/v1/issues/search', { token: own.admin.token, body });
  const statistics = (body: unknown) => system.api('POST', '/api/v1/statistics', { token: own.admin.token, body });

  beforeAll(async () => {
    own = await seedWorkspace(system);
    const queue = await system.api('POST', '/api/v1/queues', { token: own.admin.token, body: { key: 'EMPTY', name: 'Empty lists' } });
    queueId = queue.body.id;
    for (const title of ['First', 'Second']) {
      expect((await system.api('POST', '/api/v1/issues', { token: own.admin.token, body: { queue_id: queueId, title, assignee_id: own.admin.id } })).status).toBe(201);
    }
    // The statistics replica hears of the issues through the event stream.
    const counted = await pollUntil(() => statistics({ queue_ids: [queueId] }), (r) => r.status === 200 && r.body.total === 2, 15_000);
    expect(counted.body.total).toBe(2);
  });

  test.each(LISTS)('when %s is [], then search answers 200 [] and statistics count nothing; absent, both see the issues', async (list) => {
    const found = await search({ [list]: [] });
    expect({ status: found.status, body: found.body }).toEqual({ status: 200, body: [] });
    expect((await search({})).body.filter((i: { queue_id: number }) => i.queue_id === queueId)).toHaveLength(2);

    const counted = await statistics({ [list]: [] });
    expect({ status: counted.status, body: counted.body }).toEqual({ status: 200, body: { ...NOTHING_COUNTED, as_of: counted.body.as_of } });
    expect((await statistics({})).body.total).toBeGreaterThanOrEqual(2);
  });

  test('when a dashboard widget has queue_ids: [], then it is stored as given, listed to a member without grants, and its filters select nothing', async () => {
    const created = await system.api('POST', '/api/v1/dashboards', {
      token: own.admin.token,
      body: { name: 'No queue chosen', widgets: [{ type: 'stats', filters: { queue_ids: [] } }] },
    });
    expect(created.status).toBe(201);
    const filters = created.body.widgets[0].filters;
    expect(filters).toEqual({ queue_ids: [], mine: false, overdue: false });
    const listed = await system.api('GET', '/api/v1/dashboards', { token: own.member.token });
    expect(listed.body.map((d: { id: number }) => d.id)).toContain(created.body.id);

    // Evaluated as a client evaluates a widget: its filters sent as they are stored.
    expect((await statistics(filters)).body).toMatchObject({ total: 0, queues: [] });
    expect((await search(filters)).body).toEqual([]);
  });
});

describe('limits', () => {
  test('when the body is larger than 1 MiB, then 413 before it reaches a service', async () => {
    const res = await system.api('PATCH', `/api/v1/users/${ws.member.id}`, {
      token: ws.admin.token,
      body: { name: 'x'.repeat(1024 * 1024 + 1) },
    });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
  });

  test('when a token exceeds its rate limit, then 429 with Retry-After, and other tokens are unaffected', async () => {
    const limited = await system.startGateway({ RATE_LIMIT_PER_MINUTE: '5' });
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 7; i++) {
      last = await system.api('GET', '/api/v1/me', { token: ws.member.token, baseUrl: limited.url });
      statuses.push(last.status);
    }
    // The window may roll over mid-test; then the count restarts, never exceeding the limit per window.
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(7);
    expect(statuses).toContain(429);
    const refused = await system.api('GET', '/api/v1/me', { token: ws.member.token, baseUrl: limited.url });
    if (refused.status === 429) {
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect(refused.body.code).toBe('rate_limited');
    }
    expect((await system.api('GET', '/api/v1/me', { token: ws.admin.token, baseUrl: limited.url })).status).toBe(200);
  });
});

describe('upstream failures', () => {
  test('when an upstream does not answer in time, then 503 problem within the timeout, never a hung request', async () => {
    const silent = await startFakeUpstream(() => {
      /* never answers */
    });
    const gateway = await system.startGateway({ ISSUES_URL: silent.url, UPSTREAM_TIMEOUT_MS: '700' });
    try {
      const res = await system.api('GET', '/api/v1/queues', { token: ws.member.token, baseUrl: gateway.url });
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('service_unavailable');
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.ms).toBeLessThan(3000);
    } finally {
      await silent.close();
    }
  });

  test('when the statistics service is down, then 503 statistics_unavailable quickly while other paths work', async () => {
    const gateway = await system.startGateway({ STATISTICS_URL: 'http://127.0.0.1:1' });
    for (const [method, path] of [['POST', '/api/v1/statistics'], ['GET', '/api/v1/dashboards']] as const) {
      const res = await system.api(method, path, { token: ws.member.token, baseUrl: gateway.url, body: method === 'POST' ? {} : undefined });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: 503, code: 'statistics_unavailable' });
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.ms).toBeLessThan(1000);
    }
    expect((await system.api('GET', '/api/v1/me', { token: ws.member.token, baseUrl: gateway.url })).status).toBe(200);
  });

  test('when the access service is down, then authentication answers 503, not 401 and not a hang', async () => {
    const gateway = await system.startGateway({ ACCESS_URL: 'http://127.0.0.1:1', REDIS_URL: 'redis://127.0.0.1:1' });
    const res = await system.api('GET', '/api/v1/me', { token: ws.member.token, baseUrl: gateway.url });
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('service_unavailable');
    expect(res.ms).toBeLessThan(4000);
  });
});

describe('graceful shutdown', () => {
  test('when the gateway gets SIGTERM, then it exits cleanly with code 0', async () => {
    const gateway = await system.startGateway();
    expect((await system.api('GET', '/api/v1/me', { token: ws.member.token, baseUrl: gateway.url })).status).toBe(200);
    expect(await gateway.stop('SIGTERM')).toBe(0);
  });
});
