/**
 * OWASP API3 (object property level), API4 (resource consumption) and API8
 * (security misconfiguration), through the gateway as a client would.
 */
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { startSystem, type ApiResponse, type ServiceProcess, type System } from '@tracker/system-tests-support';
import { fingerprint, ok, rawExchange, recording, seedWorkspaces, statusOf, type Actor, type SeededWorkspace } from './helpers';

const MiB = 1024 * 1024;
let system: System;
let api: System['api'];
let seen: ReturnType<typeof recording>['seen'];
let A: SeededWorkspace;
let B: SeededWorkspace;
let member: Actor;
let limited: ServiceProcess;
let slowloris: Promise<{ text: string; ms: number; closed: boolean }>;
const world = {} as { queue: { id: number; key: string }; issue: { id: number; key: string; version: number }; dashboard: number; title: string };

beforeAll(async () => {
  system = await startSystem();
  ({ api, seen } = recording(system));
  // A client trickling its request headers, one byte every 200 ms; checked at the end of the file.
  const head = `GET /api/v1/me HTTP/1.1\r\nHost: x\r\nX-Slow: ${'a'.repeat(400)}`;
  slowloris = rawExchange(system.services.gateway.port, head.split(''), { gapMs: 200, timeoutMs: 25_000 });
  [[A, B], limited] = await Promise.all([
    seedWorkspaces(system, [{ users: { member: 'member' } }, { users: { fresh: 'member', unlimited: 'member' } }]) as Promise<[SeededWorkspace, SeededWorkspace]>,
    system.startGateway({ RATE_LIMIT_PER_MINUTE: '5', STATISTICS_URL: 'http://127.0.0.1:1' }),
  ]);
  member = A.users.member!;
  world.title = `Title ${Date.now()}`;
  world.queue = ok(await api('POST', '/api/v1/queues', { token: A.admin.token, body: { key: 'PROP', name: 'Properties' } }), 201);
  world.issue = ok(await api('POST', '/api/v1/issues', { token: A.admin.token, body: { queue_id: world.queue.id, title: world.title } }), 201);
  world.dashboard = ok(await api('POST', '/api/v1/dashboards', { token: A.admin.token, body: { name: 'Board', widgets: [] } }), 201).id;
  ok(await api('PUT', `/api/v1/queues/${world.queue.id}/permissions/${member.id}`, { token: A.admin.token, body: { role: 'read-write' } }));
}, 60_000);
afterAll(() => system?.stop());

const expectProblem = (res: ApiResponse, status: number, code: string) => {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
};

describe('API3 object property level', () => {
  /** [method, path, valid body, read-only or foreign fields to add one at a time]. */
  const cases = (): Array<[string, string, Record<string, unknown>, Record<string, unknown>]> => [
    ['POST', '/api/v1/queues', { key: 'NEWQ', name: 'New' }, { id: 99, workspace_id: B.id, statuses: [], created_at: '2020-01-01T00:00:00Z', role: 'admin', role_source: 'explicit' }],
    [
      'POST',
      '/api/v1/issues',
      { queue_id: world.queue.id, title: 'New' },
      { id: 99, version: 7, key: 'PROP-99', workspace_id: B.id, created_by: B.admin.id, author_id: B.admin.id, status_id: 1, spent_minutes: 5, created_at: '2020-01-01T00:00:00Z', comments: [] },
    ],
    [
      'PATCH',
      `/api/v1/issues/${world.issue.key}`,
      { title: 'Changed', version: world.issue.version },
      { id: 99, key: 'PROP-99', workspace_id: B.id, queue_id: world.queue.id, created_by: B.admin.id, spent_minutes: 5, updated_at: '2020-01-01T00:00:00Z', history: [] },
    ],
    ['POST', `/api/v1/issues/${world.issue.key}/comments`, { body: 'Hi' }, { id: 99, author_id: B.admin.id, issue_id: 1, created_at: '2020-01-01T00:00:00Z' }],
    ['POST', `/api/v1/issues/${world.issue.key}/worklogs`, { minutes: 5 }, { id: 99, author_id: B.admin.id, issue_id: 1 }],
    ['PATCH', `/api/v1/users/${member.id}`, { name: 'Bob' }, { id: 99, workspace_id: B.id, token: 'trk_x', token_hash: 'ab', created_at: '2020-01-01T00:00:00Z', workspace: { id: B.id } }],
    ['PUT', `/api/v1/queues/${world.queue.id}/permissions/${member.id}`, { role: 'read-only' }, { user_id: A.admin.id, queue_id: 1, workspace_id: B.id, explicit_role: 'admin' }],
    ['POST', '/api/v1/users', { name: 'Grace', email: 'grace-props@example.com' }, { id: 99, workspace_id: B.id, active: false, password: 'a passphrase of 12+', setup_url: 'x', created_at: '2020-01-01T00:00:00Z' }],
    ['POST', `/api/v1/users/${member.id}/setup-link`, { email: 'member-props@example.com' }, { user_id: B.admin.id, password: 'a passphrase of 12+', code: 'x', setup_url: 'x', expires_at: '2099-01-01T00:00:00Z' }],
    // Checked before the session is: a personal token gets 422 for a bad body, as anyone.
    ['POST', '/api/v1/tokens', { name: 'CI', expires_in_days: 1 }, { id: 99, token: 'trk_x', prefix: 'trk_x', user_id: B.admin.id, expires_at: '2099-01-01T00:00:00Z', session_id: 1 }],
    ['PATCH', `/api/v1/queues/${world.queue.id}`, { name: 'Renamed' }, { key: 'OTHER', id: 99, workspace_id: B.id, statuses: [] }],
    ['POST', '/api/v1/dashboards', { name: 'Mine', widgets: [] }, { id: 99, owner_id: B.admin.id, workspace_id: B.id }],
    ['PUT', `/api/v1/dashboards/${world.dashboard}`, { name: 'Mine', widgets: [] }, { id: 99, owner_id: member.id, workspace_id: B.id }],
    ['POST', '/api/v1/issues/search', {}, { workspace_id: B.id, limit: 100000, offset: 0 }],
    ['POST', '/api/v1/statistics', {}, { workspace_id: B.id }],
  ];

  test('when a body carries a read-only, foreign or unknown field, then 422 naming it, and nothing changes', async () => {
    const before = await fingerprint(system);
    for (const [method, path, valid, extras] of cases()) {
      for (const [field, value] of Object.entries({ ...extras, [`x_${method.toLowerCase()}`]: 1 })) {
        const res = await api(method, path, { token: A.admin.token, body: { ...valid, [field]: value } });
        const label = `${method} ${path} +${field}`;
        expect({ label, status: res.status }).toEqual({ label, status: 422 });
        expect({ label, errors: res.body.errors }).toEqual({ label, errors: [{ path: field, message: 'unknown field' }] });
      }
    }
    expect(await fingerprint(system)).toEqual(before);
  });

  test('when a nested object carries an unknown field, then 422 with its full path', async () => {
    const widget = { type: 'stats', filters: { queue_ids: [world.queue.id], workspace_id: B.id } };
    const res = await api('POST', '/api/v1/dashboards', { token: A.admin.token, body: { name: 'x', widgets: [widget, { type: 'stats', owner_id: 1 }] } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([
      { path: 'widgets.0.filters.workspace_id', message: 'unknown field' },
      { path: 'widgets.1.owner_id', message: 'unknown field' },
    ]);
  });

  test('when a role outside the allowed values is sent, then 422 and nothing changes', async () => {
    const before = await fingerprint(system);
    for (const role of ['owner', 'superadmin', 'ADMIN', '', null, 1, ['admin']]) {
      expect((await api('PATCH', `/api/v1/users/${member.id}`, { token: A.admin.token, body: { role } })).status).toBe(422);
      expect((await api('PUT', `/api/v1/queues/${world.queue.id}/permissions/${member.id}`, { token: A.admin.token, body: { role } })).status).toBe(422);
    }
    expect(await fingerprint(system)).toEqual(before);
  });

  test('answers carry exactly the documented user fields: no token, no hash, no other workspace', async () => {
    const me = ok(await api('GET', '/api/v1/me', { token: member.token }));
    expect(Object.keys(me).sort()).toEqual(['active', 'created_at', 'email', 'id', 'name', 'role', 'updated_at', 'workspace', 'workspace_id']);
    expect(Object.keys(me.workspace).sort()).toEqual(['id', 'name']);
    const users = ok(await api('GET', '/api/v1/users', { token: member.token }));
    for (const user of users) {
      expect(Object.keys(user).sort()).toEqual(['active', 'created_at', 'email', 'id', 'name', 'role', 'updated_at', 'workspace_id']);
      expect(user.workspace_id).toBe(A.id);
    }
  });
});

describe('API4 unrestricted resource consumption', () => {
  test('when the body is over 1 MiB, then 413, whether its length is declared or it is chunked', async () => {
    const before = await fingerprint(system);
    const big = JSON.stringify({ queue_id: world.queue.id, title: 'x', description: 'd'.repeat(MiB) });
    const declared = await api('POST', '/api/v1/issues', { token: A.admin.token, raw: big, headers: { 'content-type': 'application/json' } });
    expectProblem(declared, 413, 'payload_too_large');
    const chunks = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode(big.slice(i * (big.length / 20), (i + 1) * (big.length / 20))));
        controller.close();
      },
    });
    const res = await fetch(`${system.gatewayUrl}/api/v1/issues`, {
      method: 'POST',
      headers: { authorization: `Bearer ${A.admin.token}`, 'content-type': 'application/json' },
      body: chunks,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { code: string }).code).toBe('payload_too_large');
    expect(await fingerprint(system)).toEqual(before);
  });

  test('when a small gzip body inflates past 1 MiB, then 413; when gzip is declared over plain bytes, then 422', async () => {
    const bomb = gzipSync(Buffer.from(JSON.stringify({ body: 'x'.repeat(64 * MiB) })));
    expect(bomb.length).toBeLessThan(MiB);
    const path = `/api/v1/issues/${world.issue.key}/comments`;
    const headers = { authorization: `Bearer ${A.admin.token}`, 'content-type': 'application/json', 'content-encoding': 'gzip' };
    const inflated = await fetch(system.gatewayUrl + path, { method: 'POST', headers, body: bomb });
    expect(inflated.status).toBe(413);
    const plain = await fetch(system.gatewayUrl + path, { method: 'POST', headers, body: '{"body":"hello"}' });
    expect(plain.status).toBe(422);
    expect(await plain.json()).toMatchObject({ code: 'validation_failed', errors: [{ path: '(body)' }] });
  });

  test('when a service refuses a chunked body before reading it all, then the next request on the same connection is answered at once', async () => {
    // Found by the fuzzing suite: the unread rest of the body stayed on the client's
    // keep-alive connection and the next request waited behind it until a timeout.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const send = (headers: Record<string, string>, body: string) =>
      new Promise<{ status: number; reused: boolean; ms: number }>((resolve, reject) => {
        const started = Date.now();
        const req = http.request({ host: '127.0.0.1', port: system.services.gateway.port, method: 'POST', path: '/api/v1/issues', headers, agent }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode!, reused: req.reusedSocket, ms: Date.now() - started }));
        });
        req.setTimeout(5000, () => req.destroy(new Error('no answer within 5 s')));
        req.on('error', reject);
        req.end(body);
      });
    try {
      const deep = 100_000;
      for (let round = 0; round < 30; round++) {
        // An encoding the service does not decode: refused before a byte of the body is read.
        const refused = await send(
          { authorization: `Bearer ${A.admin.token}`, 'content-type': 'application/json', 'content-encoding': 'x-unknown', 'transfer-encoding': 'chunked' },
          `{"queue_id":1,"title":${'['.repeat(deep)}${']'.repeat(deep)}}`,
        );
        // Answered by the gateway itself (bad token) or by the service.
        const token = round % 2 ? 'not-a-token' : A.admin.token;
        const next = await send({ authorization: `Bearer ${token}`, 'content-type': 'application/json' }, '{}');
        expect([round, refused.status, next.status, next.reused, next.ms < 2000]).toEqual([round, 422, round % 2 ? 401 : 422, true, true]);
      }
    } finally {
      agent.destroy();
    }
  });

  test.each([
    ['deeply nested arrays', () => `{"title":${'['.repeat(400_000)}${']'.repeat(400_000)}}`],
    ['deeply nested objects', () => `{"labels":${'{"a":'.repeat(150_000)}1${'}'.repeat(150_000)}}`],
    ['a huge array of ids', () => JSON.stringify({ queue_ids: Array.from({ length: 150_000 }, (_, i) => i + 1) })],
    ['a huge array of bad elements', () => JSON.stringify({ queue_ids: Array(200_000).fill('x') })],
    ['a huge array of labels', () => JSON.stringify({ queue_id: 1, title: 'x', labels: Array(100_000).fill('abcdefg') })],
    ['50,000 unknown fields', () => `{${Array.from({ length: 50_000 }, (_, i) => `"f${i}":1`).join(',')}}`],
  ])('when the body holds %s (under 1 MiB), then 422 quickly with a small answer', async (_label, make) => {
    const raw = make();
    expect(Buffer.byteLength(raw)).toBeLessThanOrEqual(MiB);
    for (const path of ['/api/v1/issues/search', '/api/v1/issues']) {
      const res = await api('POST', path, { token: A.admin.token, raw, headers: { 'content-type': 'application/json' } });
      expectProblem(res, 422, 'validation_failed');
      expect(res.ms).toBeLessThan(3000);
      expect(JSON.stringify(res.body).length).toBeLessThan(20_000);
      expect((res.body.errors as unknown[]).length).toBeLessThanOrEqual(50);
    }
  });

  /** One past each bound (the limits of docs/decisions.md and the contracts' own). */
  const overBounds = (): Array<[string, string, string, Record<string, unknown>]> => {
    const s = (n: number) => 'x'.repeat(n);
    const q = world.queue.id;
    const issue = `/api/v1/issues/${world.issue.key}`;
    return [
      ['queue key', 'POST', '/api/v1/queues', { key: `K${s(12)}`, name: 'x' }],
      ['queue name', 'POST', '/api/v1/queues', { key: 'KK', name: s(101) }],
      ['queue description', 'POST', '/api/v1/queues', { key: 'KK', name: 'x', description: s(10_001) }],
      ['queue settings name', 'PATCH', `/api/v1/queues/${q}`, { name: s(101) }],
      ['queue settings description', 'PATCH', `/api/v1/queues/${q}`, { description: s(10_001) }],
      ['issue title', 'POST', '/api/v1/issues', { queue_id: q, title: s(501) }],
      ['issue description', 'POST', '/api/v1/issues', { queue_id: q, title: 'x', description: s(100_001) }],
      ['issue labels', 'POST', '/api/v1/issues', { queue_id: q, title: 'x', labels: Array(51).fill('l') }],
      ['issue label', 'POST', '/api/v1/issues', { queue_id: q, title: 'x', labels: [s(101)] }],
      ['issue type', 'POST', '/api/v1/issues', { queue_id: q, title: 'x', type: s(51) }],
      ['issue estimate', 'POST', '/api/v1/issues', { queue_id: q, title: 'x', estimate_minutes: 1_000_001 }],
      ['update title', 'PATCH', issue, { title: s(501) }],
      ['update description', 'PATCH', issue, { description: s(100_001) }],
      ['update labels', 'PATCH', issue, { labels: Array(51).fill('l') }],
      ['update position', 'PATCH', issue, { position: 1e16 }],
      ['update version', 'PATCH', issue, { version: 2 ** 31 }],
      ['comment body', 'POST', `${issue}/comments`, { body: s(50_001) }],
      ['worklog minutes', 'POST', `${issue}/worklogs`, { minutes: 1441 }],
      ['worklog description', 'POST', `${issue}/worklogs`, { minutes: 1, description: s(10_001) }],
      ['dashboard name', 'POST', '/api/v1/dashboards', { name: s(501), widgets: [] }],
      ['dashboard widgets', 'POST', '/api/v1/dashboards', { name: 'x', widgets: Array(31).fill({ type: 'stats' }) }],
      ['widget title', 'POST', '/api/v1/dashboards', { name: 'x', widgets: [{ type: 'stats', title: s(201) }] }],
      ['filter search', 'POST', '/api/v1/issues/search', { search: s(501) }],
      ['filter label', 'POST', '/api/v1/issues/search', { label: s(101) }],
      ['filter queue ids', 'POST', '/api/v1/issues/search', { queue_ids: Array.from({ length: 101 }, (_, i) => i + 1) }],
      ['filter status ids', 'POST', '/api/v1/statistics', { status_ids: Array.from({ length: 101 }, (_, i) => i + 1) }],
      ['filter assignee ids', 'POST', '/api/v1/statistics', { assignee_ids: Array.from({ length: 101 }, (_, i) => i + 1) }],
      ['widget filter ids', 'POST', '/api/v1/dashboards', { name: 'x', widgets: [{ type: 'stats', filters: { status_ids: Array.from({ length: 101 }, (_, i) => i + 1) } }] }],
      ['dashboard ids in all', 'POST', '/api/v1/dashboards', { name: 'x', widgets: Array.from({ length: 11 }, (_, w) => ({ type: 'stats', filters: { status_ids: Array.from({ length: w < 10 ? 100 : 1 }, (_, i) => i + 1) } })) }],
      ['dashboard text in all', 'POST', '/api/v1/dashboards', { name: 'x', widgets: Array.from({ length: 21 }, (_, w) => ({ type: 'stats', title: s(w < 20 ? 200 : 1) })) }],
      ['filter id value', 'POST', '/api/v1/issues/search', { queue_ids: [2 ** 31] }],
      ['user name', 'PATCH', `/api/v1/users/${member.id}`, { name: s(101) }],
      ['invited name', 'POST', '/api/v1/users', { name: s(101), email: 'bounds@example.com' }],
      ['invited email', 'POST', '/api/v1/users', { name: 'x', email: `${s(245)}@example.com` }],
      ['invited email without @', 'POST', '/api/v1/users', { name: 'x', email: 'bounds.example.com' }],
      ['setup link email', 'POST', `/api/v1/users/${member.id}/setup-link`, { email: `${s(245)}@example.com` }],
      ['token name', 'POST', '/api/v1/tokens', { name: s(101), expires_in_days: 1 }],
      ['token days', 'POST', '/api/v1/tokens', { name: 'x', expires_in_days: 367 }],
      ['token days 0', 'POST', '/api/v1/tokens', { name: 'x', expires_in_days: 0 }],
    ];
  };

  test('when any string, array or number is one past its bound, then 422 naming the field, and nothing changes', async () => {
    const before = await fingerprint(system);
    for (const [label, method, path, body] of overBounds()) {
      const res = await api(method, path, { token: A.admin.token, body });
      expect({ label, status: res.status }).toEqual({ label, status: 422 });
    }
    expect(await fingerprint(system)).toEqual(before);
  });

  test('when a text field holds a NUL character, then 422 (Postgres cannot store it), never 500', async () => {
    const before = await fingerprint(system);
    const nul = 'a\u0000b';
    for (const [method, path, body] of [
      ['PATCH', `/api/v1/users/${member.id}`, { name: nul }],
      ['POST', '/api/v1/users', { name: nul, email: 'nul@example.com' }],
      ['POST', '/api/v1/tokens', { name: nul, expires_in_days: 1 }],
      ['POST', '/api/v1/queues', { key: 'NUL', name: nul }],
      ['POST', '/api/v1/issues', { queue_id: world.queue.id, title: nul }],
      ['POST', '/api/v1/issues', { queue_id: world.queue.id, title: 'x', labels: [nul] }],
      ['POST', '/api/v1/issues', { queue_id: world.queue.id, title: 'x', type: nul }],
      ['POST', `/api/v1/issues/${world.issue.key}/comments`, { body: nul }],
      ['POST', '/api/v1/issues/search', { search: nul }],
      ['POST', '/api/v1/dashboards', { name: nul, widgets: [] }],
    ] as const) {
      const res = await api(method, path, { token: A.admin.token, body });
      expect({ path, body, status: res.status }).toEqual({ path, body, status: 422 });
    }
    for (const key of ['PROP-1%00', '%00', 'PROP%00-1']) {
      const res = await api('GET', `/api/v1/issues/${key}`, { token: A.admin.token });
      expect({ key, status: res.status }).toEqual({ key, status: 404 });
    }
    expect(await fingerprint(system)).toEqual(before);
  });

  test('when the headers or the URL are too large, then 431 problem+json; when the request is not HTTP, then 400', async () => {
    const port = system.services.gateway.port;
    const big = await rawExchange(port, [`GET /api/v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${A.admin.token}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    expect(statusOf(big.text)).toBe(431);
    expect(big.text).toMatch(/content-type: application\/problem\+json/i);
    const longUrl = await rawExchange(port, [`GET /api/v1/issues/${'A'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`]);
    expect(statusOf(longUrl.text)).toBe(431);
    const junk = await rawExchange(port, ['\u0016\u0003\u0001 not http at all\r\n\r\n']);
    expect(statusOf(junk.text)).toBe(400);
  });

  test('when bytes that are not HTTP follow a whole request, then that request gets its own answer, the last on the connection', async () => {
    // Found by the fuzzing suite: Node's client sends a DELETE body without Content-Length;
    // the gateway answered the stray bytes with 400 ahead of the DELETE's own 200, so a
    // change that was made looked refused.
    const before = await fingerprint(system);
    const answer = await rawExchange(system.services.gateway.port, [
      `GET /api/v1/issues/${world.issue.key} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${A.admin.token}\r\nConnection: keep-alive\r\n\r\n{"stray":true}`,
    ]);
    expect(answer.closed).toBe(true);
    expect(answer.text.match(/^HTTP\/1\.1 \d{3}/gm)).toEqual(['HTTP/1.1 200']);
    expect(answer.text).toMatch(/\r\nconnection: close\r\n/i);
    expect(answer.text).toContain(`"key":"${world.issue.key}"`);
    expect(await fingerprint(system)).toEqual(before);
  });

  test('when a token goes over its rate limit, then 429 with Retry-After and RateLimit headers; other tokens go on', async () => {
    const statuses: number[] = [];
    let refused: ApiResponse | undefined;
    for (let i = 0; i < 12 && !refused; i++) {
      const res = await api('GET', '/api/v1/me', { token: member.token, baseUrl: limited.url });
      statuses.push(res.status);
      if (res.status === 429) refused = res;
    }
    expect(refused).toBeDefined();
    expectProblem(refused!, 429, 'rate_limited');
    const retryAfter = Number(refused!.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    expect(refused!.headers.get('ratelimit-limit')).toBe('5');
    expect(refused!.headers.get('ratelimit-remaining')).toBe('0');
    // At most the limit per window; a window boundary mid-loop restarts the count once.
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(10);
    // Counters are per token (and shared by every gateway through Redis): a token not used yet goes through.
    expect((await api('GET', '/api/v1/me', { token: B.users.fresh!.token, baseUrl: limited.url })).status).toBe(200);
  });
});

describe('API8 security misconfiguration', () => {
  /** One answer of each kind a client can provoke. */
  const answers = async (): Promise<Array<[string, ApiResponse]>> => {
    const issue = `/api/v1/issues/${world.issue.key}`;
    const t = A.admin.token;
    const stale = ok(await api('PATCH', issue, { token: t, body: { description: `v${Date.now()}` } })).version - 1;
    return [
      ['200', await api('GET', '/api/v1/me', { token: t })],
      ['201', await api('POST', `${issue}/comments`, { token: t, body: { body: 'x' } })],
      ['401', await api('GET', '/api/v1/me')],
      ['403', await api('POST', '/api/v1/queues', { token: member.token, body: { key: 'NOPE', name: 'x' } })],
      ['404 route', await api('GET', '/api/v1/nothing/here', { token: t })],
      ['404 object', await api('GET', '/api/v1/issues/NOPE-1', { token: t })],
      ['409 version', await api('PATCH', issue, { token: t, body: { title: 'y', version: stale } })],
      ['409 key', await api('POST', '/api/v1/queues', { token: t, body: { key: world.queue.key, name: 'x' } })],
      ['413', await api('POST', '/api/v1/issues/search', { token: t, raw: `"${'x'.repeat(MiB)}"`, headers: { 'content-type': 'application/json' } })],
      ['422 json', await api('POST', '/api/v1/issues/search', { token: t, raw: '{"search":', headers: { 'content-type': 'application/json' } })],
      ['422 type', await api('POST', '/api/v1/issues/search', { token: t, raw: 'search=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } })],
      ['422 id', await api('PATCH', '/api/v1/queues/99999999999999999999', { token: t, body: {} })],
      ['422 percent', await api('GET', '/api/v1/issues/%E0%A4%A', { token: t })],
      ['503', await api('POST', '/api/v1/statistics', { token: B.users.unlimited!.token, body: {}, baseUrl: limited.url })],
    ];
  };

  test('every answer: no X-Powered-By, Cache-Control: no-store, nosniff, JSON or problem+json', async () => {
    for (const [label, res] of await answers()) {
      expect({ label, poweredBy: res.headers.get('x-powered-by') }).toEqual({ label, poweredBy: null });
      expect({ label, cache: res.headers.get('cache-control') }).toEqual({ label, cache: 'no-store' });
      expect({ label, nosniff: res.headers.get('x-content-type-options') }).toEqual({ label, nosniff: 'nosniff' });
      const type = res.status >= 400 ? /^application\/problem\+json/ : /^application\/json/;
      expect({ label, type: res.headers.get('content-type') }).toEqual({ label, type: expect.stringMatching(type) });
      if (res.status >= 400) expect(res.body).toMatchObject({ type: expect.any(String), title: expect.any(String), status: res.status, code: expect.any(String) });
    }
  });

  test('no answer carries a stack trace, an internal address, a file path or a driver message', async () => {
    const ports = Object.values(system.services).map((s) => String(s.port));
    const leaks = [/\n\s+at /, /\.ts:\d+/, /node_modules/, /127\.0\.0\.1/, /localhost/i, /ECONN/, /prisma/i, /postgres/i, /redis/i, /amqp/i, /\bt_e2e/, /SELECT /i];
    for (const [label, res] of await answers()) {
      const text = JSON.stringify(res.body) + [...res.headers.values()].join(' ');
      for (const leak of leaks) expect({ label, leak: leak.test(text) ? leak.source : null }).toEqual({ label, leak: null });
      for (const port of ports) expect({ label, port: text.includes(`:${port}`) }).toEqual({ label, port: false });
    }
  });

  test('internal endpoints, metrics and service health details are not reachable through the gateway', async () => {
    const paths = [
      '/internal/auth/resolve',
      '/internal/acl/users/1',
      '/internal/users/lookup',
      '/internal/queues',
      '/internal/snapshot/issues',
      '/internal/snapshot/queues',
      '/api/v1/internal/snapshot/issues',
      '/api/v1/../internal/snapshot/issues',
      '/api/v1/issues/..%2F..%2F..%2Finternal%2Fsnapshot%2Fissues',
      '/api/v1/issues/%2e%2e/%2e%2e/%2e%2e/internal/snapshot/issues',
      '//internal/snapshot/issues',
      '/metrics',
      '/api/v1/metrics',
      '/api/v1/healthz',
      '/api/v1/readyz',
    ];
    for (const path of paths) {
      for (const method of ['GET', 'POST']) {
        const res = await api(method, path, { token: A.admin.token, body: method === 'POST' ? { token_hash: '0'.repeat(64) } : undefined });
        expect({ path, method, status: res.status }).toEqual({ path, method, status: 404 });
        expect(JSON.stringify(res.body)).not.toContain(world.title);
      }
    }
    // Dot segments sent raw, as fetch would never send them.
    const port = system.services.gateway.port;
    for (const path of [
      '/api/v1/issues/../../internal/snapshot/issues',
      `/api/v1/queues/${world.queue.id}/permissions/../../../../internal/acl/users/${member.id}`,
      '/api/v1/statistics/../../internal/snapshot/issues',
    ]) {
      const { text } = await rawExchange(port, [`GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${A.admin.token}\r\nConnection: close\r\n\r\n`]);
      expect({ path, status: statusOf(text) }).toEqual({ path, status: 404 });
      expect(text).not.toContain(world.title);
    }
    // The gateway's own health answers say nothing about the services behind it.
    for (const path of ['/healthz', '/readyz']) {
      const res = await api('GET', path);
      expect(res.status).toBe(200);
      expect(JSON.stringify(res.body)).not.toMatch(/access|issues|statistics|database|redis|127\.0\.0\.1/);
    }
  });

  test('TRACE and OPTIONS do not echo the request or reveal routes', async () => {
    const options = await api('OPTIONS', '/api/v1/me', { token: A.admin.token, headers: { origin: 'https://evil.example' } });
    expect(options.status).toBe(404);
    expect(options.headers.get('allow')).toBeNull();
    expect(options.headers.get('access-control-allow-origin')).toBeNull();
    const { text } = await rawExchange(system.services.gateway.port, [
      `TRACE /api/v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${A.admin.token}\r\nX-Echo: secret-value\r\nConnection: close\r\n\r\n`,
    ]);
    expect(statusOf(text)).toBe(404);
    expect(text).not.toContain('secret-value');
    expect(text).not.toContain(A.admin.token);
  });

  test('a client trickling its headers byte by byte (slowloris) is cut off by the gateway with 408', async () => {
    const { text, ms, closed } = await slowloris;
    expect(closed).toBe(true);
    expect(statusOf(text)).toBe(408);
    // Headers timeout 10 s, checked every second; the margin absorbs a loaded machine.
    expect(ms).toBeGreaterThan(9_000);
    expect(ms).toBeLessThan(20_000);
  }, 30_000);

  test('no answer in this file carried a token or a token hash', () => {
    for (const { text } of seen) {
      expect(text).not.toMatch(/\b[0-9a-f]{64}\b/);
      expect(text).not.toMatch(/trk_[0-9A-Za-z]{32}/);
    }
  });
});
