/**
 * OWASP API: fuzzing through the gateway. Property-based (fast-check) requests against
 * every documented operation: random paths, methods, headers and bodies, from nearly
 * valid to absurd, sent with a real token. Whatever arrives, the answer is never 5xx,
 * an error is problem+json with a stable code, and a refused request changes nothing.
 */
import http from 'node:http';
import fc from 'fast-check';
import { API_OPERATIONS, PROBLEM_CODES, type ApiOperation } from '@tracker/contracts';
import { startSystem, type System } from '@tracker/system-tests-support';
import { eventually, fingerprint, ok, seedWorkspaces, type SeededWorkspace } from './helpers';

// FUZZ_RUNS=500 for a longer hunt; the default keeps the file around 20 s. FUZZ_SEED replays a run.
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);

let system: System;
let A: SeededWorkspace;
let B: SeededWorkspace;
const world = {} as {
  queue: { id: number; key: string };
  hidden: { id: number; key: string };
  issue: { id: number; key: string };
  dashboard: number;
  foreignToken: number;
  webhook: number;
  foreignWebhook: number;
  delivery: number;
};
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

beforeAll(async () => {
  system = await startSystem();
  [A, B] = await seedWorkspaces(system, [{ users: { member: 'member' } }, { users: {} }]);
  const admin = A!.admin.token;
  world.queue = ok(await system.api('POST', '/api/v1/queues', { token: admin, body: { key: 'FUZ', name: 'Fuzzed' } }), 201);
  world.hidden = ok(await system.api('POST', '/api/v1/queues', { token: admin, body: { key: 'HID', name: 'Hidden' } }), 201);
  ok(await system.api('PUT', `/api/v1/queues/${world.queue.id}/permissions/${A!.users.member!.id}`, { token: admin, body: { role: 'read-write' } }));
  world.issue = ok(await system.api('POST', '/api/v1/issues', { token: admin, body: { queue_id: world.queue.id, title: 'Target' } }), 201);
  ok(await system.api('POST', '/api/v1/issues', { token: admin, body: { queue_id: world.hidden.id, title: 'Hidden' } }), 201);
  world.dashboard = ok(await system.api('POST', '/api/v1/dashboards', { token: admin, body: { name: 'Board', widgets: [] } }), 201).id;
  world.foreignToken = ok(await system.api('GET', '/api/v1/tokens', { token: B!.admin.token }))[0].id;
  // Webhooks to the examples' host (allowed in test systems; it resolves nowhere, so deliveries only fail and wait).
  world.webhook = ok(await system.api('POST', '/api/v1/webhooks', { token: admin, body: { url: 'https://hooks.example.com/a', events: ['*'] } }), 201).id;
  world.foreignWebhook = ok(await system.api('POST', '/api/v1/webhooks', { token: B!.admin.token, body: { url: 'https://hooks.example.com/b', events: ['*'] } }), 201).id;
  world.delivery = ok(await system.api('POST', `/api/v1/webhooks/${world.webhook}/ping`, { token: admin }), 201).id;
  // The replica is built in the background at start; until then statistics answer 503 by design.
  await eventually(async () => (await system.api('POST', '/api/v1/statistics', { token: admin, body: {} })).status === 200, 20_000);
}, 60_000);
afterAll(async () => {
  agent.destroy();
  await system?.stop();
});

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * Sends exactly what it is given: Node's client does not normalise the path as fetch would.
 * A live event stream (GET /api/v1/events/stream) answers for minutes: its answer is taken
 * as its status, headers and first frame, and the client then leaves (as a browser tab does).
 */
function send(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: system.services.gateway.port, method, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      const streamed = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        if (!streamed || !Buffer.concat(chunks).includes('\n\n')) return;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
        req.destroy();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(20_000, () => req.destroy(new Error(`no answer in 20 s to ${method} ${path}`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Characters Node lets a client put into a header value (visible ASCII, space, tab). */
const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 });
const weirdText = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('', ' ', '\u0000', '\uD800', '💥', '..', '%', '%ZZ', '%00', '%2e%2e', '%2F', '-1', '0', '1e3', '0x10', '1.0', ' 1', '2147483648', '99999999999999999999', "'; DROP TABLE issues; --", 'x'.repeat(300)),
);
/** Percent-encodes every UTF-16 unit, lone surrogates too (encodeURIComponent throws on those). */
const encode = (text: string) => [...text].map((c) => (/^[A-Za-z0-9_.~-]$/.test(c) ? c : [...Buffer.from(c)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''))).join('');
/** A path segment as sent on the wire: mostly encoded, sometimes raw (Node refuses only spaces and control characters). */
const segment = fc.oneof(
  { weight: 3, arbitrary: weirdText.map(encode) },
  { weight: 1, arbitrary: fc.constantFrom('..', '.', '', '%', '%ZZ', '%00', '%2e%2e', '%2F..%2F', ';x=1', 'a?b=c', '#frag', '*') },
);

/** Path parameters: the real objects, hidden and foreign ones, and junk. */
function paramValue(name: string): fc.Arbitrary<string> {
  const real = (): Record<string, Array<string | number>> => ({
    key: [world.issue.key, world.issue.key.toLowerCase(), 'HID-1', 'FUZ-999999', 'NOPE-1', `${world.queue.key}-0`],
    queue_id: [world.queue.id, world.hidden.id, 2_147_483_647],
    user_id: [A.users.member!.id, A.admin.id, B.admin.id],
    dashboard_id: [world.dashboard, 2_147_483_647],
    // Never the tokens the fuzzer sends: revoking one would leave the operations after it only 401s to explore.
    token_id: [world.foreignToken, 2_147_483_647],
    webhook_id: [world.webhook, world.foreignWebhook, 2_147_483_647],
    delivery_id: [world.delivery, world.delivery + 1, 9_007_199_254_740_991],
  });
  return fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...real()[name]!).map(String) }, { weight: 1, arbitrary: segment });
}

function paths(operation: ApiOperation): fc.Arbitrary<string> {
  const template = operation.path.split('/');
  const filled = fc.tuple(...template.map((part) => (/^\{\w+\}$/.test(part) ? paramValue(part.slice(1, -1)) : fc.constant(part)))).map((parts) => parts.join('/'));
  return fc.oneof(
    { weight: 6, arbitrary: filled },
    // The right path with something after it: a query string, a trailing slash or segment, doubled slashes.
    { weight: 2, arbitrary: fc.tuple(filled, fc.constantFrom('?', '/', '//', '/x', '?access_token=x', '?a=1&a=2', '/..', '%00', '.json'), headerText.map(encode)).map(([p, sep, tail]) => p + sep + tail) },
    { weight: 1, arbitrary: fc.array(segment, { maxLength: 6 }).map((segments) => `/api/v1/${segments.join('/')}`) },
  );
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE'];
const methods = (operation: ApiOperation) =>
  fc.oneof({ weight: 5, arbitrary: fc.constant(operation.method.toUpperCase()) }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) });

/** A valid body per operation (so that fuzzing also reaches past validation). */
function validBody(operation: ApiOperation): Record<string, unknown> | undefined {
  const bodies: Record<string, Record<string, unknown>> = {
    QueueCreate: { key: 'NEWQ', name: 'New' },
    QueueSettings: { name: 'Renamed' },
    QueuePermissionInput: { role: 'read-only' },
    UserChanges: { name: 'Renamed' },
    UserInvite: { name: 'Fuzzed', email: 'fuzzed@example.com' },
    SetupLinkRequest: { email: 'fuzzed-link@example.com' },
    TokenCreate: { name: 'Fuzzed', expires_in_days: 1 },
    IssueCreate: { queue_id: world.queue.id, title: 'New' },
    IssueUpdate: { title: 'Changed' },
    CommentCreate: { body: 'Hello' },
    WorklogCreate: { minutes: 5 },
    Filters: { search: 'target' },
    DashboardInput: { name: 'Board', widgets: [] },
    WebhookCreate: { url: 'https://hooks.example.com/new', events: ['issue.*'] },
    WebhookUpdate: { description: 'Fuzzed' },
  };
  return operation.body ? bodies[operation.body] : undefined;
}

const anything = fc.oneof(
  weirdText,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -1, 2_147_483_648, 1e308, true, false, null, [], {}, 'FUZ-1', 'HID-1'),
  fc.jsonValue({ maxDepth: 2 }),
);

function bodies(operation: ApiOperation): fc.Arbitrary<Buffer | undefined> {
  const valid = validBody(operation) ?? {};
  const fields = Object.keys(valid).length ? Object.keys(valid) : ['x'];
  const json = fc.oneof(
    { weight: 3, arbitrary: fc.constant(valid) },
    // One field replaced by anything, or another field added (unknown, foreign or read-only).
    { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...fields), anything).map(([field, value]) => ({ ...valid, [field]: value })) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom('id', 'version', 'workspace_id', 'author_id', 'role', 'active', 'queue_ids', 'widgets', 'url', 'secret', '__proto__', 'constructor'), anything).map(([field, value]) => ({ ...valid, [field]: value })) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 50_000 }).map((n) => ({ ...valid, labels: Array.from({ length: n }, () => 'x') })) },
  );
  // Deep nesting, written out directly (too deep for JSON.stringify), within the 1 MiB body limit.
  const deep = fc.tuple(fc.constantFrom(...fields), fc.integer({ min: 100, max: 100_000 }), fc.constantFrom('[', '{"a":')).map(([field, depth, open]) => {
    const close = open === '[' ? ']' : '}';
    const inner = JSON.stringify(valid).slice(1, -1);
    return Buffer.from(`{${inner}${inner ? ',' : ''}"${field}":${open.repeat(depth)}1${close.repeat(depth)}}`);
  });
  return fc.oneof(
    { weight: 8, arbitrary: json.map((value) => Buffer.from(JSON.stringify(value) ?? 'null')) },
    { weight: 1, arbitrary: deep },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)) },
    { weight: 1, arbitrary: fc.constantFrom(undefined, Buffer.from(''), Buffer.from('{'), Buffer.from('{"a":1,"a":2}'), Buffer.from('\uFEFF{}')) },
  );
}

/** Headers: a real or broken token, a content type, sometimes encodings, ids and noise. */
function headerSets(): fc.Arbitrary<Record<string, string>> {
  const auth = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(A.admin.token, A.users.member!.token).map((t) => `Bearer ${t}`) },
    { weight: 1, arbitrary: fc.constantFrom(B.admin.token).map((t) => `Bearer ${t}`) },
    { weight: 1, arbitrary: fc.oneof(headerText, fc.constantFrom('Bearer', 'Bearer ', 'bearer trk_', `Basic ${A.admin.token}`, `Bearer ${A.admin.token} extra`, `Bearer ${A.admin.token.slice(0, -1)}`)) },
  );
  const contentType = fc.oneof(
    { weight: 6, arbitrary: fc.constant('application/json') },
    { weight: 2, arbitrary: fc.constantFrom('application/json; charset=utf-8', 'application/json; charset=latin1', 'APPLICATION/JSON', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/merge-patch+json', 'application/problem+json', '') },
    { weight: 1, arbitrary: headerText },
  );
  const extra = fc.record(
    {
      'content-encoding': fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-unknown', 'gzip, gzip'),
      'x-request-id': headerText,
      accept: fc.oneof(headerText, fc.constantFrom('application/xml', 'text/html', '*/*')),
      'x-tracker-principal': headerText,
      'x-forwarded-for': headerText,
      'x-http-method-override': fc.constantFrom('DELETE', 'PUT', 'GET'),
      'transfer-encoding': fc.constantFrom('chunked'),
    },
    { requiredKeys: [] },
  );
  return fc.tuple(auth, contentType, fc.option(extra, { freq: 3 })).map(([authorization, type, more]) => {
    const headers: Record<string, string> = { ...(more ?? {}), authorization };
    if (type) headers['content-type'] = type;
    return headers;
  });
}

describe('fuzzing every documented operation through the gateway', () => {
  const operations = API_OPERATIONS.map((o) => [`${o.method.toUpperCase()} ${o.path}`, o] as const);

  test.each(operations)('%s: never a 5xx, errors are problem+json, and a refused request changes nothing', async (_name, operation) => {
    let before = await fingerprint(system);
    await fc.assert(
      fc.asyncProperty(methods(operation), paths(operation), headerSets(), bodies(operation), async (method, path, headers, body) => {
        const answer = await send(method, path, headers, method === 'GET' || method === 'HEAD' ? undefined : body);
        // FUZZ_DEBUG=1 lists every request of a run (with FUZZ_SEED, to replay a failure step by step).
        if (process.env.FUZZ_DEBUG) console.log(method, path, JSON.stringify(headers), body?.length, '→', answer.status);
        const after = await fingerprint(system);
        const seen = `${method} ${path} → ${answer.status} ${answer.text.slice(0, 300)}`;
        expect([seen, answer.status < 500]).toEqual([seen, true]);
        if (answer.status >= 400) {
          if (method !== 'HEAD') {
            expect([seen, answer.headers['content-type']]).toEqual([seen, expect.stringMatching(/^application\/problem\+json/)]);
            const problem = JSON.parse(answer.text) as { status: number; code: keyof typeof PROBLEM_CODES };
            expect([seen, problem.status, PROBLEM_CODES[problem.code]?.status]).toEqual([seen, answer.status, answer.status]);
          }
          expect([seen, after]).toEqual([seen, before]);
        }
        before = after;
      }),
      { numRuns: RUNS, interruptAfterTimeLimit: 50_000, ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}) },
    );
  }, 120_000);
});
