/**
 * OWASP API1 (object level), API2 (authentication) and API5 (function level
 * authorization), through the gateway as a client would.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { API_OPERATIONS } from '@tracker/contracts';
import { issueTicket, type TicketRequest } from '@tracker/kit';
import { devSigningKey, type Signer } from '@tracker/signing';
import { startFakeUpstream } from '@tracker/testing';
import { startSystem, type ApiResponse, type System } from '@tracker/system-tests-support';
import {
  comparableHeaders,
  eventually,
  fillPath,
  fingerprint,
  maskedBody,
  ok,
  recording,
  seedWorkspaces,
  allEndpoints,
  coreEndpoints,
  type Actor,
  type SeededWorkspace,
} from './helpers';

let system: System;
let api: System['api'];
let seen: ReturnType<typeof recording>['seen'];
let A: SeededWorkspace;
let B: SeededWorkspace;
/** A's users: rw (read-write on HID), ro (read-only on HID), none (no access to HID, read-write on VIS). */
let rw: Actor, ro: Actor, none: Actor, quitter: Actor;
let revoked: { token: string };
const MARK = `hidden${Date.now().toString(36)}`;
const world = {} as {
  hid: { id: number; key: string };
  vis: { id: number; key: string };
  hidIssue: { id: number; key: string };
  hidSubtask: { id: number; key: string };
  visIssue: { id: number; key: string };
  hidDashboard: number;
  ownDashboard: number;
  bQueue: { id: number; key: string };
  bIssue: { id: number; key: string };
  /** rw's personal token, as its owner lists it. */
  rwToken: number;
  /** A's webhook (to the examples' host, allowed in test systems) and its ping. */
  webhook: number;
  delivery: number;
};

beforeAll(async () => {
  system = await startSystem();
  ({ api, seen } = recording(system));
  [A, B] = await seedWorkspaces(system, [
    { users: { rw: 'member+revoked', ro: 'member', none: 'member', quitter: 'member' } },
    { users: { member: 'member' } },
  ]);
  ({ rw, ro, none, quitter } = A!.users as Record<string, Actor>);
  revoked = { token: rw.revokedToken! };

  const admin = A!.admin.token;
  world.hid = ok(await api('POST', '/api/v1/queues', { token: admin, body: { key: 'HID', name: `Hidden ${MARK}` } }), 201);
  world.vis = ok(await api('POST', '/api/v1/queues', { token: admin, body: { key: 'VIS', name: 'Visible' } }), 201);
  for (const [user, queue, role] of [
    [rw, world.hid, 'read-write'],
    [ro, world.hid, 'read-only'],
    [none, world.vis, 'read-write'],
    [rw, world.vis, 'read-write'],
  ] as const) {
    ok(await api('PUT', `/api/v1/queues/${queue.id}/permissions/${user.id}`, { token: admin, body: { role } }));
  }
  world.hidIssue = ok(await api('POST', '/api/v1/issues', { token: admin, body: { queue_id: world.hid.id, title: `Secret ${MARK}`, description: MARK, labels: [MARK] } }), 201);
  ok(await api('POST', `/api/v1/issues/${world.hidIssue.key}/comments`, { token: admin, body: { body: `comment ${MARK}` } }), 201);
  ok(await api('POST', `/api/v1/issues/${world.hidIssue.key}/worklogs`, { token: admin, body: { minutes: 30 } }), 201);
  world.visIssue = ok(await api('POST', '/api/v1/issues', { token: admin, body: { queue_id: world.vis.id, title: 'Visible', description: `see ${world.hidIssue.key}` } }), 201);
  world.hidSubtask = ok(await api('POST', '/api/v1/issues', { token: admin, body: { queue_id: world.hid.id, title: `Sub ${MARK}`, parent_id: world.visIssue.id } }), 201);
  world.hidDashboard = ok(await api('POST', '/api/v1/dashboards', { token: admin, body: { name: `Board ${MARK}`, widgets: [{ type: 'stats', filters: { queue_ids: [world.hid.id] } }] } }), 201).id;
  world.ownDashboard = ok(await api('POST', '/api/v1/dashboards', { token: admin, body: { name: 'Open board', widgets: [{ type: 'stats', filters: { queue_ids: [world.vis.id] } }] } }), 201).id;

  world.bQueue = ok(await api('POST', '/api/v1/queues', { token: B!.admin.token, body: { key: 'BQ', name: 'B queue' } }), 201);
  world.bIssue = ok(await api('POST', '/api/v1/issues', { token: B!.admin.token, body: { queue_id: world.bQueue.id, title: 'B issue' } }), 201);
  world.rwToken = ok(await api('GET', '/api/v1/tokens', { token: rw.token }))[0].id;
  world.webhook = ok(await api('POST', '/api/v1/webhooks', { token: admin, body: { url: 'https://hooks.example.com/a', events: ['*'] } }), 201).id;
  world.delivery = ok(await api('POST', `/api/v1/webhooks/${world.webhook}/ping`, { token: admin }), 201).id;
}, 60_000);
afterAll(() => system?.stop());

/** A valid body for each endpoint, so that only the caller's rights decide the answer. */
function validBody(method: string, path: string): unknown {
  const bodies: Record<string, unknown> = {
    'POST /api/v1/queues': { key: 'NEWQ', name: 'New' },
    'POST /api/v1/issues/search': {},
    'PATCH /api/v1/issues/{key}': { title: 'Changed' },
    'POST /api/v1/issues': { queue_id: world.hid.id, title: 'New' },
    'POST /api/v1/issues/{key}/comments': { body: 'Hello' },
    'POST /api/v1/issues/{key}/worklogs': { minutes: 5 },
    'POST /api/v1/statistics': {},
    'POST /api/v1/dashboards': { name: 'Mine', widgets: [] },
    'PUT /api/v1/dashboards/{dashboard_id}': { name: 'Taken over', widgets: [] },
    'PUT /api/v1/queues/{queue_id}/permissions/{user_id}': { role: 'admin' },
    'PATCH /api/v1/queues/{queue_id}': { name: 'Renamed' },
    'PATCH /api/v1/users/{user_id}': { role: 'admin' },
    'POST /api/v1/users': { name: 'Invited', email: `invited-${MARK}@example.com`, role: 'admin' },
    'POST /api/v1/users/{user_id}/setup-link': { email: `taken-over-${MARK}@example.com` },
    'POST /api/v1/tokens': { name: 'Minted', expires_in_days: null },
    'POST /api/v1/webhooks': { url: 'https://hooks.example.com/taken', events: ['*'] },
    'PATCH /api/v1/webhooks/{webhook_id}': { url: 'https://hooks.example.com/taken-over' },
  };
  return bodies[`${method} ${path}`];
}

/** Every path parameter an endpoint of the lists may take, naming A's objects. */
const paramsOf = (user: Actor) => ({
  key: world.visIssue.key,
  queue_id: world.vis.id,
  user_id: user.id,
  dashboard_id: world.ownDashboard,
  token_id: world.rwToken,
  webhook_id: world.webhook,
  delivery_id: world.delivery,
});

const expectUnauthorized = (res: ApiResponse) => {
  expect(res.status).toBe(401);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
  expect(res.body).toMatchObject({ status: 401, code: 'unauthorized' });
};

describe('the committed endpoint list', () => {
  test('matches the Operations table of docs/decisions.md', () => {
    const rows = fs
      .readFileSync(path.resolve(__dirname, '../../../docs/decisions.md'), 'utf8')
      .split('\n')
      .map((line) => /^\|\s*(GET|POST|PUT|PATCH|DELETE)\s*\|\s*`(\/api\/v1\/[^`]*)`\s*\|/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => `${m[1]} ${m[2]}`);
    expect(coreEndpoints().map((e) => `${e.method} ${e.path}`).sort()).toEqual([...new Set(rows)].sort());
  });

  test('with the issue list pages, equals the operations of the published OpenAPI document (its own document aside)', () => {
    const documented = API_OPERATIONS.filter((o) => !o.public).map((o) => `${o.method.toUpperCase()} ${o.path}`);
    expect(allEndpoints().map((e) => `${e.method} ${e.path}`).sort()).toEqual(documented.sort());
  });

  test('has the twenty-five endpoints of API v1 (the first twenty and the five of people\'s accounts), each once', () => {
    const keys = coreEndpoints().map((e) => `${e.method} ${e.path}`);
    expect(keys).toHaveLength(25);
    expect(new Set(keys).size).toBe(25);
  });
});

describe('API2 authentication', () => {
  const badCredentials: Array<[string, Record<string, string>]> = [
    ['no Authorization header', {}],
    ['a Basic credential', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['an empty Bearer', { authorization: 'Bearer ' }],
    ['a malformed token', { authorization: 'Bearer not-a-token' }],
    ['a token with the wrong prefix', { authorization: `Bearer tok_${'A'.repeat(40)}` }],
    ['a token too short', { authorization: `Bearer trk_${'A'.repeat(8)}` }],
    ['a well-formed unknown token', { authorization: `Bearer trk_${'Z'.repeat(43)}` }],
    ['two tokens', { authorization: `Bearer trk_${'Z'.repeat(43)} trk_${'Y'.repeat(43)}` }],
    ['a session cookie only', { cookie: 'session=abc; token=trk_' + 'Z'.repeat(43) }],
    ['a cookie shaped like a signed-in browser\'s', { cookie: `trk_session=${'A'.repeat(43)}` }],
  ];

  test.each(badCredentials)('when any endpoint is called with %s, then 401 with WWW-Authenticate: Bearer', async (_label, headers) => {
    for (const endpoint of allEndpoints()) {
      const path = fillPath(endpoint.path, paramsOf(rw));
      expectUnauthorized(await api(endpoint.method, path, { headers, body: validBody(endpoint.method, endpoint.path) }));
    }
  });

  test('when a valid token is sent with another scheme, or in the query string, or as a cookie, then 401', async () => {
    const token = A.admin.token;
    for (const res of [
      await api('GET', '/api/v1/me', { headers: { authorization: `Token ${token}` } }),
      await api('GET', '/api/v1/me', { headers: { authorization: token } }),
      await api('GET', `/api/v1/me?access_token=${token}`),
      await api('GET', `/api/v1/me?token=${token}&authorization=Bearer%20${token}`),
      await api('GET', '/api/v1/me', { headers: { cookie: `token=${token}; access_token=${token}` } }),
    ]) {
      expectUnauthorized(res);
    }
  });

  test('when the token was revoked, then 401 on every endpoint; the owner\'s other token still works', async () => {
    for (const endpoint of allEndpoints()) {
      const path = fillPath(endpoint.path, paramsOf(rw));
      expectUnauthorized(await api(endpoint.method, path, { token: revoked.token, body: validBody(endpoint.method, endpoint.path) }));
    }
    expect((await api('GET', '/api/v1/me', { token: rw.token })).status).toBe(200);
  });

  test('when the owner is deactivated, then their token is 401 at once, and nothing they send changes anything', async () => {
    expect((await api('GET', '/api/v1/me', { token: quitter.token })).status).toBe(200);
    ok(await api('PATCH', `/api/v1/users/${quitter.id}`, { token: A.admin.token, body: { active: false } }));
    const before = await fingerprint(system);
    for (const endpoint of allEndpoints()) {
      const path = fillPath(endpoint.path, paramsOf(quitter));
      expectUnauthorized(await api(endpoint.method, path, { token: quitter.token, body: validBody(endpoint.method, endpoint.path) }));
    }
    expect(await fingerprint(system)).toEqual(before);
  });

  test('when a client sends its own principal header, then it is dropped: the token decides who calls', async () => {
    const forged = issueTicket(system.keys.gateway, { audience: 'access', method: 'GET', path: '/api/v1/me', user: { kind: 'user', userId: A.admin.id, workspaceId: A.id, workspaceRole: 'admin', tokenId: 1 } });
    const res = await api('GET', '/api/v1/me', { token: B.users.member!.token, headers: { 'x-tracker-principal': forged } });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(B.users.member!.id);
    // Even a header signed with the gateway's own key is not a way in through the gateway without a token.
    expectUnauthorized(await api('GET', '/api/v1/me', { headers: { 'x-tracker-principal': forged } }));
  });

  describe('services reached directly on their own ports', () => {
    const user = () => ({ kind: 'user' as const, userId: A.admin.id, workspaceId: A.id, workspaceRole: 'admin' as const, tokenId: 1 });
    /** A ticket as the system's gateway would make it for this request (the key is this system's, never shipped). */
    const gatewayTicket = (request: Omit<TicketRequest, 'user'>, now?: number) => issueTicket(system.keys.gateway, { ...request, user: user() }, now);
    const forgeries = (audience: Signer, method: string, path: string, body?: unknown): Array<[string, Record<string, string>]> => {
      const bytes = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const request = { audience, method, path, body: bytes };
      const valid = gatewayTicket(request);
      const [v, payload, signature] = valid.split('.') as [string, string, string];
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      const reencoded = (changes: object) => Buffer.from(JSON.stringify({ ...claims, ...changes })).toString('base64url');
      const now = Date.now();
      return [
        ['no ticket', {}],
        ['the bearer token instead', { authorization: `Bearer ${A.admin.token}` }],
        ['a user ticket signed by another part of the system (a compromised pod)', { 'x-tracker-principal': issueTicket(system.keys.issues, { ...request, user: user() }) }],
        ['a user ticket signed with the published development key', { 'x-tracker-principal': issueTicket(devSigningKey('gateway'), { ...request, user: user() }) }],
        ['an expired ticket', { 'x-tracker-principal': gatewayTicket(request, now - 31_000) }],
        ['a ticket issued a minute in the future (a fast gateway clock)', { 'x-tracker-principal': gatewayTicket(request, now + 60_000) }],
        ['a ticket whose claims were changed after signing', { 'x-tracker-principal': `${v}.${reencoded({ sub: { ...user(), workspaceId: B.id } })}.${signature}` }],
        ['a ticket made to live an hour', { 'x-tracker-principal': `${v}.${reencoded({ exp: claims.exp + 3600 })}.${signature}` }],
        ['a ticket whose signature has a character appended', { 'x-tracker-principal': `${valid}!` }],
        ['a ticket whose signature has padding appended', { 'x-tracker-principal': `${valid}==` }],
        ['a ticket without a signature', { 'x-tracker-principal': `${v}.${payload}.` }],
        ['a ticket of another version', { 'x-tracker-principal': `v0.${payload}.${signature}` }],
        ['a ticket made for another service', { 'x-tracker-principal': gatewayTicket({ ...request, audience: audience === 'issues' ? 'access' : 'issues' }) }],
        ['a ticket made for another path', { 'x-tracker-principal': gatewayTicket({ ...request, path: `${path}x` }) }],
        ['a ticket made for another method', { 'x-tracker-principal': gatewayTicket({ ...request, method: method === 'GET' ? 'DELETE' : 'GET' }) }],
        ['a ticket made for another body', { 'x-tracker-principal': gatewayTicket({ ...request, body: Buffer.from('{"x":1}') }) }],
        ['garbage', { 'x-tracker-principal': 'x'.repeat(3000) }],
      ];
    };

    test('when a public route is called with anything but a fresh gateway ticket made for that very request, then 401', async () => {
      const routes: Array<[Signer, string, string]> = [
        ['access', 'GET', '/api/v1/me'],
        ['access', 'GET', '/api/v1/users'],
        ['issues', 'GET', '/api/v1/queues'],
        ['issues', 'GET', `/api/v1/issues/${world.hidIssue.key}`],
        ['statistics', 'GET', '/api/v1/dashboards'],
        ['statistics', 'POST', '/api/v1/statistics'],
      ];
      for (const [service, method, path] of routes) {
        const body = method === 'POST' ? {} : undefined;
        for (const [label, headers] of forgeries(service, method, path, body)) {
          const res = await api(method, path, { baseUrl: system.services[service as keyof System['services']].url, headers, body });
          expect({ service, path, label, status: res.status }).toEqual({ service, path, label, status: 401 });
        }
        // The same request with a valid ticket is accepted once, and its replay refused.
        const ticket = gatewayTicket({ audience: service, method, path, body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)) });
        const first = await api(method, path, { baseUrl: system.services[service as keyof System['services']].url, headers: { 'x-tracker-principal': ticket }, body });
        expect({ path, status: first.status }).toEqual({ path, status: 200 });
        const again = await api(method, path, { baseUrl: system.instances(service as keyof System['services']).at(-1)!.url, headers: { 'x-tracker-principal': ticket }, body });
        expect({ path, replay: again.status }).toEqual({ path, replay: 401 });
      }
    });

    test('when a ticket the gateway sent is captured and replayed (same request, another route, method, body or service), then 401', async () => {
      // A gateway of its own whose issues upstream records what it is sent before passing it on.
      const captured: Array<{ method: string; path: string; ticket: string; body: Buffer }> = [];
      const recorder = await startFakeUpstream((request, res) => {
        const body = request.bytes;
        captured.push({ method: request.method, path: request.url, ticket: String(request.headers['x-tracker-principal']), body });
        const upstream = http.request(new URL(request.url, system.urls.issues), { method: request.method, headers: request.headers }, (answer) => {
          res.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(res);
        });
        upstream.end(body);
      });
      const gateway = await system.startGateway({ ISSUES_URL: recorder.url });
      try {
        const comment = { body: 'captured on the wire' };
        const sent = await api('POST', `/api/v1/issues/${world.visIssue.key}/comments`, { baseUrl: gateway.url, token: A.admin.token, body: comment });
        expect(sent.status).toBe(201);
        const { ticket, path, body } = captured.at(-1)!;
        const count = async () => (await api('GET', `/api/v1/issues/${world.visIssue.key}`, { token: A.admin.token })).body.comments.length;
        const before = await count();
        const replays: Array<[string, string, string, Buffer | undefined, Signer]> = [
          ['the same request again', 'POST', path, body, 'issues'],
          ['another route', 'PATCH', `/api/v1/issues/${world.visIssue.key}`, Buffer.from(JSON.stringify({ title: 'hijacked' })), 'issues'],
          ['another method', 'PUT', path, body, 'issues'],
          ['another body', 'POST', path, Buffer.from(JSON.stringify({ body: 'forged' })), 'issues'],
          ['another service', 'GET', '/api/v1/users', undefined, 'access'],
        ];
        for (const [label, method, target, bytes, service] of replays) {
          for (const instance of system.instances(service as keyof System['services'])) {
            const headers = { 'x-tracker-principal': ticket, ...(bytes ? { 'content-type': 'application/json' } : {}) };
            const res = await api(method, target, { baseUrl: instance.url, headers, raw: bytes?.toString() });
            expect({ label, status: res.status }).toEqual({ label, status: 401 });
          }
        }
        expect(await count()).toBe(before);
      } finally {
        await gateway.stop();
        await recorder.close();
      }
    });

    test('when a service calls an internal route outside its scope, or any caller brings no service ticket, then 401 or 403', async () => {
      const routes: Array<[Signer, string, string, unknown, Signer[]]> = [
        ['access', 'POST', '/internal/auth/resolve', { token_hash: '0'.repeat(64) }, ['gateway']],
        ['access', 'GET', `/internal/acl/users/${rw.id}`, undefined, ['issues', 'statistics', 'notifications']],
        ['access', 'POST', '/internal/users/lookup', { workspace_id: A.id, user_ids: [rw.id] }, ['issues', 'statistics']],
        ['access', 'POST', '/internal/queues', { queue_id: 999, workspace_id: A.id, key: 'EVIL' }, ['issues', 'statistics']],
        ['issues', 'GET', '/internal/snapshot/queues', undefined, ['statistics']],
        ['issues', 'GET', '/internal/snapshot/issues', undefined, ['statistics']],
        ['issues', 'GET', '/internal/snapshot/comments', undefined, ['statistics']],
      ];
      const callers: Signer[] = ['gateway', 'access', 'issues', 'statistics', 'agent', 'notifications'];
      for (const [service, method, path, body, allowed] of routes) {
        const bytes = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
        const request = { audience: service, method, path, body: bytes };
        const url = system.services[service as keyof System['services']].url;
        for (const headers of [{} as Record<string, string>, { 'x-tracker-principal': gatewayTicket(request) }, { 'x-tracker-principal': issueTicket(system.keys.statistics, request, Date.now() - 31_000) }]) {
          const res = await api(method, path, { baseUrl: url, headers, body });
          expect({ path, status: res.status }).toEqual({ path, status: 401 });
        }
        for (const caller of callers.filter((name) => name !== service && !allowed.includes(name))) {
          const res = await api(method, path, { baseUrl: url, headers: { 'x-tracker-principal': issueTicket(system.keys[caller as keyof System['keys']], request) }, body });
          expect({ path, caller, status: res.status }).toEqual({ path, caller, status: 403 });
        }
      }
    });
  });
});

describe('API1 object level authorization', () => {
  interface Probe {
    endpoint: string;
    hidden: string;
    missing: string;
    ids: Array<string | number>;
    body?: unknown;
  }

  /** Each endpoint taking an id or key, aimed at A's hidden object and at one that does not exist. */
  const probes = (target: Actor): Probe[] => {
    const missingQueue = 999_999;
    return [
      ...[
        'GET /api/v1/issues/{key}',
        'PATCH /api/v1/issues/{key}',
        'POST /api/v1/issues/{key}/comments',
        'POST /api/v1/issues/{key}/worklogs',
        ...['comments', 'worklogs', 'history', 'links', 'subtasks'].map((list) => `GET /api/v1/issues/{key}/${list}`),
      ].flatMap((endpoint) => {
        const [method, path] = endpoint.split(' ') as [string, string];
        const body = validBody(method, path);
        return [
          { endpoint, hidden: fillPath(path, { key: world.hidIssue.key }), missing: fillPath(path, { key: 'HID-99999' }), ids: [world.hidIssue.key, 'HID-99999'], body },
          { endpoint, hidden: fillPath(path, { key: world.hidIssue.key }), missing: fillPath(path, { key: 'NOPE-1' }), ids: [world.hidIssue.key, 'NOPE-1'], body },
        ];
      }),
      ...[
        'PATCH /api/v1/queues/{queue_id}',
        'GET /api/v1/queues/{queue_id}/permissions',
        'GET /api/v1/queues/{queue_id}/permissions/history',
        'PUT /api/v1/queues/{queue_id}/permissions/{user_id}',
        'DELETE /api/v1/queues/{queue_id}/permissions/{user_id}',
      ].map((endpoint) => {
        const [method, path] = endpoint.split(' ') as [string, string];
        return {
          endpoint,
          hidden: fillPath(path, { queue_id: world.hid.id, user_id: target.id }),
          missing: fillPath(path, { queue_id: missingQueue, user_id: target.id }),
          ids: [world.hid.id, missingQueue],
          body: validBody(method, path),
        };
      }),
      {
        endpoint: 'PUT /api/v1/dashboards/{dashboard_id}',
        hidden: `/api/v1/dashboards/${world.hidDashboard}`,
        missing: '/api/v1/dashboards/999999',
        ids: [world.hidDashboard, 999_999],
        body: validBody('PUT', '/api/v1/dashboards/{dashboard_id}'),
      },
      {
        endpoint: 'GET /api/v1/dashboards/{dashboard_id}/statistics',
        hidden: `/api/v1/dashboards/${world.hidDashboard}/statistics`,
        missing: '/api/v1/dashboards/999999/statistics',
        ids: [world.hidDashboard, 999_999],
      },
    ];
  };

  const compare = async (token: string, probe: Probe) => {
    const [method] = probe.endpoint.split(' ') as [string];
    const hidden = await api(method, probe.hidden, { token, body: probe.body });
    const missing = await api(method, probe.missing, { token, body: probe.body });
    const label = `${probe.endpoint} (${probe.hidden} vs ${probe.missing})`;
    expect({ label, status: hidden.status }).toEqual({ label, status: 404 });
    expect({ label, status: missing.status }).toEqual({ label, status: 404 });
    expect({ label, headers: comparableHeaders(hidden.headers) }).toEqual({ label, headers: comparableHeaders(missing.headers) });
    expect({ label, body: maskedBody(hidden.body, ...probe.ids) }).toEqual({ label, body: maskedBody(missing.body, ...probe.ids) });
  };

  test('when another workspace\'s admin names A\'s objects, then each answer equals that of an object that does not exist, and nothing changes', async () => {
    const before = await fingerprint(system);
    for (const probe of probes(B.users.member!)) await compare(B.admin.token, probe);
    // A user of another workspace is as unknown as no user at all.
    await compare(B.admin.token, { endpoint: 'PATCH /api/v1/users/{user_id}', hidden: `/api/v1/users/${rw.id}`, missing: '/api/v1/users/999999', ids: [rw.id, 999_999], body: { name: 'Taken' } });
    await compare(B.admin.token, {
      endpoint: 'PUT /api/v1/queues/{queue_id}/permissions/{user_id}',
      hidden: `/api/v1/queues/${world.bQueue.id}/permissions/${rw.id}`,
      missing: `/api/v1/queues/${world.bQueue.id}/permissions/999999`,
      ids: [rw.id, 999_999],
      body: { role: 'admin' },
    });
    expect(await fingerprint(system)).toEqual(before);
  });

  test('when anyone but its owner names a user\'s personal token, a workspace admin too, then the answer equals that for a token that does not exist, nothing changes, and it works on', async () => {
    const before = await fingerprint(system);
    const probe: Probe = { endpoint: 'DELETE /api/v1/tokens/{token_id}', hidden: `/api/v1/tokens/${world.rwToken}`, missing: '/api/v1/tokens/999999', ids: [world.rwToken, 999_999] };
    for (const caller of [A.admin, none, B.admin]) await compare(caller.token, probe);
    // Each lists their own tokens only.
    for (const caller of [A.admin, none, B.admin]) {
      expect(ok(await api('GET', '/api/v1/tokens', { token: caller.token })).map((t: any) => t.id)).not.toContain(world.rwToken);
    }
    expect(await fingerprint(system)).toEqual(before);
    expect((await api('GET', '/api/v1/me', { token: rw.token })).status).toBe(200);
  });

  test('when a member without access to the queue names its objects, then each answer equals that of an object that does not exist, and nothing changes', async () => {
    const before = await fingerprint(system);
    for (const probe of probes(none)) await compare(none.token, probe);
    expect(await fingerprint(system)).toEqual(before);
  });

  test('when a hidden queue or issue is named inside a body, then the answer equals that for one that does not exist', async () => {
    const before = await fingerprint(system);
    const pairs: Array<[string, string, (id: number) => unknown, number, number]> = [
      ['POST', '/api/v1/issues', (id) => ({ queue_id: id, title: 'x' }), world.hid.id, 999_999],
      ['POST', '/api/v1/issues/search', (id) => ({ queue_ids: [id] }), world.hid.id, 999_999],
      ['POST', '/api/v1/statistics', (id) => ({ queue_ids: [id] }), world.hid.id, 999_999],
      ['POST', '/api/v1/dashboards', (id) => ({ name: 'x', widgets: [{ type: 'stats', filters: { queue_ids: [id] } }] }), world.hid.id, 999_999],
      ['PATCH', `/api/v1/issues/${world.visIssue.key}`, (id) => ({ parent_id: id }), world.hidIssue.id, 999_999],
      ['POST', '/api/v1/issues', (id) => ({ queue_id: world.vis.id, title: 'x', parent_id: id }), world.hidIssue.id, 999_999],
    ];
    for (const [method, path, body, hiddenId, missingId] of pairs) {
      const hidden = await api(method, path, { token: none.token, body: body(hiddenId) });
      const missing = await api(method, path, { token: none.token, body: body(missingId) });
      const label = `${method} ${path} ${JSON.stringify(body(hiddenId))}`;
      expect({ label, status: hidden.status }).toEqual({ label, status: missing.status });
      expect(hidden.status).toBeGreaterThanOrEqual(400);
      expect({ label, body: maskedBody(hidden.body, hiddenId) }).toEqual({ label, body: maskedBody(missing.body, missingId) });
    }
    // Another workspace's user as assignee is as unknown as no user.
    const foreign = await api('PATCH', `/api/v1/issues/${world.bIssue.key}`, { token: B.admin.token, body: { assignee_id: rw.id } });
    const nobody = await api('PATCH', `/api/v1/issues/${world.bIssue.key}`, { token: B.admin.token, body: { assignee_id: 999_999 } });
    expect(foreign.status).toBe(422);
    expect(maskedBody(foreign.body, rw.id)).toEqual(maskedBody(nobody.body, 999_999));
    expect(await fingerprint(system)).toEqual(before);
  });

  test('lists, search, issue reads and dashboards never show a hidden queue or issue', async () => {
    for (const caller of [none, B.admin, B.users.member!]) {
      const queues = ok(await api('GET', '/api/v1/queues', { token: caller.token }));
      expect(queues.map((q: any) => q.id)).not.toContain(world.hid.id);
      const statuses = ok(await api('GET', '/api/v1/statuses', { token: caller.token }));
      expect(statuses.filter((s: any) => s.queue_id === world.hid.id)).toEqual([]);
      for (const filters of [{}, { search: MARK }, { label: MARK }, { search: world.hidIssue.key }]) {
        const found = ok(await api('POST', '/api/v1/issues/search', { token: caller.token, body: filters }));
        expect(found.filter((i: any) => i.queue_id === world.hid.id)).toEqual([]);
      }
      const dashboards = ok(await api('GET', '/api/v1/dashboards', { token: caller.token }));
      expect(dashboards.map((d: any) => d.id)).not.toContain(world.hidDashboard);
    }
    // The visible issue mentions the hidden one and is its parent: neither link nor subtask shows.
    const admin = ok(await api('GET', `/api/v1/issues/${world.visIssue.key}`, { token: A.admin.token }));
    expect(admin.links.map((l: any) => l.key)).toContain(world.hidIssue.key);
    expect(admin.subtasks.map((s: any) => s.key)).toContain(world.hidSubtask.key);
    const member = ok(await api('GET', `/api/v1/issues/${world.visIssue.key}`, { token: none.token }));
    expect(member.links).toEqual([]);
    expect(member.subtasks).toEqual([]);
    // A user list and a permission list hold only the caller's own workspace.
    const users = ok(await api('GET', '/api/v1/users', { token: B.admin.token }));
    expect(users.map((u: any) => u.workspace_id)).toEqual(users.map(() => B.id));
    const permissions = ok(await api('GET', `/api/v1/queues/${world.bQueue.id}/permissions`, { token: B.admin.token }));
    const bUsers = [B.admin.id, B.users.member!.id];
    expect(permissions.members.map((m: any) => m.user_id).filter((id: number) => !bUsers.includes(id))).toEqual([]);
  });

  test('statistics totals count only what the caller can read', async () => {
    // The replica follows events: wait until the admin's totals include every issue.
    const all = await eventually(async () => {
      const res = await api('POST', '/api/v1/statistics', { token: A.admin.token, body: {} });
      return res.status === 200 && res.body.total === 3 ? res.body : null;
    });
    expect(all).toBeTruthy();
    const visible = ok(await api('POST', '/api/v1/statistics', { token: none.token, body: {} }));
    expect(visible.total).toBe(1);
    expect(visible.queues.map((q: any) => q.queue_id)).toEqual([world.vis.id]);
    expect(visible.time.spent_minutes).toBe(0);
    const foreign = ok(await api('POST', '/api/v1/statistics', { token: B.admin.token, body: {} }));
    expect(foreign.total).toBe(1);
    expect(foreign.queues.map((q: any) => q.queue_id)).toEqual([world.bQueue.id]);
  });

  test('no answer to another workspace carries A\'s data, and no answer carries a token or a token hash', async () => {
    const tokens = [A.admin, B.admin, ...Object.values(A.users), ...Object.values(B.users)].map((a) => a.token);
    for (const { text, res } of seen) {
      expect(text).not.toMatch(/\b[0-9a-f]{64}\b/);
      expect(text).not.toMatch(/trk_[0-9A-Za-z]{32}/);
      for (const token of tokens) expect(text).not.toContain(token);
      expect(res.headers.get('x-tracker-principal')).toBeNull();
    }
    const foreignAnswers = seen.filter((s) => s.text.includes(MARK));
    expect(foreignAnswers.length).toBeGreaterThan(0);
  });
});

describe('API5 function level authorization', () => {
  /**
   * Who is below the endpoint's rights yet can see its object (so the answer is 403, not 404), and the code
   * (`forbidden` unless given): a personal token asking for a token lacks no role but a session.
   */
  const cases = (): Record<string, { caller: Actor; path: string; code?: string }> => ({
    'POST /api/v1/queues': { caller: rw, path: '/api/v1/queues' },
    'PATCH /api/v1/users/{user_id}': { caller: rw, path: `/api/v1/users/${rw.id}` },
    'POST /api/v1/users': { caller: rw, path: '/api/v1/users' },
    'POST /api/v1/users/{user_id}/setup-link': { caller: rw, path: `/api/v1/users/${ro.id}/setup-link` },
    'POST /api/v1/tokens': { caller: rw, path: '/api/v1/tokens', code: 'session_required' },
    'GET /api/v1/queues/{queue_id}/permissions': { caller: rw, path: `/api/v1/queues/${world.hid.id}/permissions` },
    'GET /api/v1/queues/{queue_id}/permissions/history': { caller: rw, path: `/api/v1/queues/${world.hid.id}/permissions/history` },
    'PUT /api/v1/queues/{queue_id}/permissions/{user_id}': { caller: rw, path: `/api/v1/queues/${world.hid.id}/permissions/${rw.id}` },
    'DELETE /api/v1/queues/{queue_id}/permissions/{user_id}': { caller: rw, path: `/api/v1/queues/${world.hid.id}/permissions/${ro.id}` },
    'PATCH /api/v1/queues/{queue_id}': { caller: rw, path: `/api/v1/queues/${world.hid.id}` },
    'PUT /api/v1/dashboards/{dashboard_id}': { caller: rw, path: `/api/v1/dashboards/${world.hidDashboard}` },
    'PATCH /api/v1/issues/{key}': { caller: ro, path: `/api/v1/issues/${world.hidIssue.key}` },
    'POST /api/v1/issues': { caller: ro, path: '/api/v1/issues' },
    'POST /api/v1/issues/{key}/comments': { caller: ro, path: `/api/v1/issues/${world.hidIssue.key}/comments` },
    'POST /api/v1/issues/{key}/worklogs': { caller: ro, path: `/api/v1/issues/${world.hidIssue.key}/worklogs` },
    'POST /api/v1/webhooks': { caller: rw, path: '/api/v1/webhooks' },
    'GET /api/v1/webhooks': { caller: rw, path: '/api/v1/webhooks' },
    'GET /api/v1/webhooks/{webhook_id}': { caller: rw, path: `/api/v1/webhooks/${world.webhook}` },
    'PATCH /api/v1/webhooks/{webhook_id}': { caller: rw, path: `/api/v1/webhooks/${world.webhook}` },
    'DELETE /api/v1/webhooks/{webhook_id}': { caller: rw, path: `/api/v1/webhooks/${world.webhook}` },
    'GET /api/v1/webhooks/{webhook_id}/deliveries': { caller: rw, path: `/api/v1/webhooks/${world.webhook}/deliveries` },
    'POST /api/v1/webhooks/{webhook_id}/ping': { caller: rw, path: `/api/v1/webhooks/${world.webhook}/ping` },
    'POST /api/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/retry': { caller: rw, path: `/api/v1/webhooks/${world.webhook}/deliveries/${world.delivery}/retry` },
  });

  test('every endpoint of the list that needs more than read rights has a case here', () => {
    // `own` (a personal token) is object level: anyone else's is 404 as a missing one (API1 above), never 403.
    const restricted = allEndpoints()
      .filter((e) => !['any', 'queue-read', 'own'].includes(e.rights))
      .map((e) => `${e.method} ${e.path}`);
    expect(Object.keys(cases()).sort()).toEqual(restricted.sort());
  });

  test('when a member below the needed rights calls each admin, owner or write operation, then 403 and nothing changes', async () => {
    const before = await fingerprint(system);
    for (const [endpoint, { caller, path, code }] of Object.entries(cases())) {
      const [method, template] = endpoint.split(' ') as [string, string];
      const res = await api(method, path, { token: caller.token, body: validBody(method, template) });
      expect({ endpoint, status: res.status, code: res.body?.code }).toEqual({ endpoint, status: 403, code: code ?? 'forbidden' });
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    expect(await fingerprint(system)).toEqual(before);
  });

  test('when a member tries to make themselves admin, then 403 whatever else the body holds', async () => {
    for (const body of [{ role: 'admin' }, { role: 'admin', name: 'x' }, { active: true }, {}, { role: 'admin', workspace_id: B.id }]) {
      const res = await api('PATCH', `/api/v1/users/${rw.id}`, { token: rw.token, body });
      expect(res.status).toBe(403);
    }
    expect(ok(await api('GET', '/api/v1/me', { token: rw.token })).role).toBe('member');
  });

  test('when a queue admin who is a workspace member grants a role, then only on that queue', async () => {
    ok(await api('PUT', `/api/v1/queues/${world.vis.id}/permissions/${ro.id}`, { token: A.admin.token, body: { role: 'admin' } }));
    // Admin of VIS, read-only on HID: cannot escalate on HID, nor reach workspace admin operations.
    expect((await api('PUT', `/api/v1/queues/${world.hid.id}/permissions/${ro.id}`, { token: ro.token, body: { role: 'admin' } })).status).toBe(403);
    expect((await api('POST', '/api/v1/queues', { token: ro.token, body: { key: 'ESC', name: 'x' } })).status).toBe(403);
    expect((await api('PATCH', `/api/v1/users/${ro.id}`, { token: ro.token, body: { role: 'admin' } })).status).toBe(403);
    expect((await api('PUT', `/api/v1/queues/${world.vis.id}/permissions/${none.id}`, { token: ro.token, body: { role: 'read-only' } })).status).toBe(200);
  });
});
