/**
 * OWASP API4 and API8 for request bodies, through the gateway: the one rule for strings
 * (no lone UTF-16 surrogate, UTF-8 bytes only) and the structural limits every service
 * checks before parsing (BODY_LIMITS), so no body can cost a service much of its thread.
 */
import { API_OPERATIONS, DASHBOARD_LIMITS, FILTER_LIMITS, requestSchemaOf, type ApiOperation, type RequestSchemaName } from '@tracker/contracts';
import { BODY_LIMITS, BODY_MESSAGES } from '@tracker/kit';
import { startSystem, type ApiResponse, type System } from '@tracker/system-tests-support';
import { fingerprint, ok, seedWorkspaces, type Actor, type SeededWorkspace } from './helpers';

let system: System;
let A: SeededWorkspace;
let member: Actor;
const world = {} as { queue: { id: number; key: string }; issue: { id: number; key: string; version: number }; dashboard: number };
const JSON_TYPE = { 'content-type': 'application/json' };
const MCP_HEADERS = { ...JSON_TYPE, accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

beforeAll(async () => {
  system = await startSystem();
  [A] = await seedWorkspaces(system, [{ users: { member: 'member' } }]);
  member = A.users.member!;
  const admin = A.admin.token;
  world.queue = ok(await system.api('POST', '/api/v1/queues', { token: admin, body: { key: 'UTF', name: 'Unicode' } }), 201);
  world.issue = ok(await system.api('POST', '/api/v1/issues', { token: admin, body: { queue_id: world.queue.id, title: 'Target' } }), 201);
  world.dashboard = ok(await system.api('POST', '/api/v1/dashboards', { token: admin, body: { name: 'Board', widgets: [] } }), 201).id;
  ok(await system.api('PUT', `/api/v1/queues/${world.queue.id}/permissions/${member.id}`, { token: admin, body: { role: 'read-write' } }));
}, 60_000);
afterAll(() => system?.stop());

const send = (method: string, path: string, raw: string, token = A.admin.token) => system.api(method, path, { token, raw, headers: JSON_TYPE });
const issueVersion = async () => ok(await system.api('GET', `/api/v1/issues/${world.issue.key}`, { token: A.admin.token })).version as number;

/** 422 validation_failed whose errors are exactly `errors`, as problem+json. */
function expectRefused(res: ApiResponse, errors: unknown[], label = '') {
  expect({ label, status: res.status, code: res.body?.code, errors: res.body?.errors }).toEqual({ label, status: 422, code: 'validation_failed', errors });
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
}

// ---------------------------------------------------------------------------- strings
/** A valid body per request schema, with one element in every array a string can sit in. */
function validBody(name: RequestSchemaName): Record<string, unknown> {
  const widgets = Array.from({ length: 3 }, () => ({ type: 'stats', title: 'Widget', filters: { queue_ids: [world.queue.id] } }));
  const bodies: Record<RequestSchemaName, Record<string, unknown>> = {
    QueueCreate: { key: 'NEWQ', name: 'New', description: 'd' },
    QueueSettings: { name: 'Renamed', description: 'd' },
    QueuePermissionInput: { role: 'read-only' },
    UserChanges: { name: 'Renamed', role: 'member' },
    UserInvite: { name: 'Invited', email: 'invited@example.com', role: 'member' },
    SetupLinkRequest: { email: 'linked@example.com' },
    TokenCreate: { name: 'Token', expires_in_days: 30 },
    IssueCreate: { queue_id: world.queue.id, title: 'New', description: 'd', type: 'bug', labels: ['ok'], due_date: '2030-01-01', priority: 'low' },
    IssueUpdate: { version: world.issue.version, title: 'Changed', description: 'd', type: 'bug', labels: ['ok'], due_date: '2030-01-01', priority: 'low' },
    CommentCreate: { body: 'Hello' },
    WorklogCreate: { minutes: 5, description: 'd' },
    Filters: { search: 'target', label: 'ok', priority: 'low', category: 'open' },
    Widget: { type: 'stats', title: 'Widget', filters: {} },
    DashboardInput: { name: 'Board', widgets },
    WebhookCreate: { url: 'https://hooks.example.com/x', events: ['issue.*'], description: 'd' },
    WebhookUpdate: { url: 'https://hooks.example.com/y', events: ['issue.*'], description: 'd' },
  };
  return structuredClone(bodies[name]);
}

type Segment = string | '*';

/** Every place a string can go in a body, from the schema as JSON Schema ('*' for any array element). */
function stringPaths(schema: any, at: Segment[] = []): Segment[][] {
  if (schema.anyOf) return schema.anyOf.flatMap((s: unknown) => stringPaths(s, at));
  if (schema.type === 'string') return [at];
  if (schema.type === 'object') return Object.entries(schema.properties ?? {}).flatMap(([name, s]) => stringPaths(s, [...at, name]));
  if (schema.type === 'array') return stringPaths(schema.items, [...at, '*']);
  return [];
}

/** Sets `value` at the path (an array element: the last one the valid body has); returns the error path. */
function setAt(body: Record<string, any>, path: Segment[], value: unknown): string {
  const concrete: Array<string | number> = [];
  let node: any = body;
  path.forEach((segment, i) => {
    const last = i === path.length - 1;
    if (segment === '*') {
      if (!Array.isArray(node) || node.length === 0) throw new Error(`the valid body has no element at ${concrete.join('.')}: add one`);
      const index = node.length - 1;
      concrete.push(index);
      if (last) node[index] = value;
      else node = node[index];
    } else {
      concrete.push(segment);
      if (last) node[segment] = value;
      else node = node[segment] ??= path[i + 1] === '*' ? [] : {};
    }
  });
  return concrete.join('.');
}

const paramsFor = (op: ApiOperation) =>
  op.path.replace(/\{(\w+)\}/g, (_m, name: string) => String({ key: world.issue.key, queue_id: world.queue.id, user_id: member.id, dashboard_id: world.dashboard, token_id: 2_147_483_647, webhook_id: 2_147_483_647, delivery_id: 1 }[name]));

const withBody = API_OPERATIONS.filter((op) => op.body);

describe('lone UTF-16 surrogates', () => {
  test('the walk finds the string fields of every operation with a body (nested ones too)', () => {
    const found = (id: string) => {
      const op = withBody.find((o) => o.operationId === id)!;
      return stringPaths(requestSchemaOf(op)!.toJSONSchema({ io: 'input' })).map((p) => p.join('.'));
    };
    expect(withBody.length).toBeGreaterThanOrEqual(11);
    expect(found('updateIssue')).toEqual(expect.arrayContaining(['title', 'description', 'type', 'labels.*', 'due_date', 'priority']));
    expect(found('createDashboard')).toEqual(expect.arrayContaining(['name', 'widgets.*.title', 'widgets.*.type', 'widgets.*.filters.search', 'widgets.*.filters.label']));
  });

  test('when any string field of any operation holds a lone \\ud800, then 422 naming its path, and nothing changes', async () => {
    const before = await fingerprint(system);
    const version = await issueVersion();
    let sent = 0;
    for (const op of withBody) {
      const schema = requestSchemaOf(op)!.toJSONSchema({ io: 'input' });
      for (const path of stringPaths(schema)) {
        const body = validBody(op.body!);
        const errorPath = setAt(body, path, 'a\ud800b');
        const raw = JSON.stringify(body);
        // JSON.stringify writes the lone surrogate as the escape a client would send.
        expect(raw).toContain('a\\ud800b');
        const res = await send(op.method.toUpperCase(), paramsFor(op), raw);
        expectRefused(res, [{ path: errorPath, message: BODY_MESSAGES.loneSurrogate }], `${op.operationId} ${errorPath}`);
        sent++;
      }
    }
    expect(sent).toBeGreaterThanOrEqual(35);
    expect(await issueVersion()).toBe(version);
    expect(await fingerprint(system)).toEqual(before);
  });

  test.each([
    ['a lone low surrogate', '"\\udc00"', 'title'],
    ['a low surrogate before a high one', '"x\\udc00\\ud800y"', 'title'],
    ['a high surrogate at the end', '"x\\uD83D"', 'title'],
    ['a lone surrogate in a label', '["ok","\\uDBFF"]', 'labels.1'],
  ])('when a PATCH carries %s, then 422 naming the field and the issue keeps its version', async (_label, json, path) => {
    const version = await issueVersion();
    const field = path.split('.')[0];
    const res = await send('PATCH', `/api/v1/issues/${world.issue.key}`, `{"${field}":${json},"version":${version}}`);
    expectRefused(res, [{ path, message: BODY_MESSAGES.loneSurrogate }]);
    expect(await issueVersion()).toBe(version);
  });

  test('when an object key holds a lone surrogate, then 422 naming it (the surrogate shown as U+FFFD), at any depth', async () => {
    const before = await fingerprint(system);
    const top = await send('PATCH', `/api/v1/issues/${world.issue.key}`, '{"title":"x","k\\ud800":1}');
    expectRefused(top, [{ path: 'k\ufffd', message: BODY_MESSAGES.loneSurrogateKey }]);
    const nested = await send('POST', '/api/v1/dashboards', '{"name":"x","widgets":[{"type":"stats","filters":{"\\udfff":1}}]}');
    expectRefused(nested, [{ path: 'widgets.0.filters.\ufffd', message: BODY_MESSAGES.loneSurrogateKey }]);
    expect(await fingerprint(system)).toEqual(before);
  });

  test('when surrogates come in pairs, as escapes or as UTF-8, or a backslash precedes "ud800", then the text is stored as sent', async () => {
    const version = await issueVersion();
    const title = 'Pair \ud83d\ude00 😀 and \\ud800 as text';
    const raw = `{"title":"Pair \\ud83d\\ude00 😀 and \\\\ud800 as text","version":${version}}`;
    expect(JSON.parse(raw).title).toBe(title);
    const res = await send('PATCH', `/api/v1/issues/${world.issue.key}`, raw);
    expect({ status: res.status, title: res.body.title }).toEqual({ status: 200, title });
    world.issue.version = res.body.version;
  });

  test('when an MCP tool call carries a lone surrogate, then /mcp answers 422 validation_failed naming it, and the issue is unchanged', async () => {
    const version = await issueVersion();
    const raw = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"update_issue","arguments":{"key":"${world.issue.key}","title":"\\ud800","version":${version}}}}`;
    const res = await system.api('POST', '/mcp', { token: A.admin.token, raw, headers: MCP_HEADERS });
    expectRefused(res, [{ path: 'params.arguments.title', message: BODY_MESSAGES.loneSurrogate }]);
    expect(await issueVersion()).toBe(version);
  });
});

// ---------------------------------------------------------------------------- UTF-8
describe('bytes that are not UTF-8', () => {
  const post = (method: string, path: string, bytes: Buffer, headers: Record<string, string> = JSON_TYPE) =>
    fetch(system.gatewayUrl + path, { method, headers: { authorization: `Bearer ${A.admin.token}`, ...headers }, body: bytes }).then(async (r) => ({
      status: r.status,
      type: r.headers.get('content-type'),
      body: (await r.json()) as any,
    }));
  const bytes = (...parts: Array<string | number[]>) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
  const refused = { status: 422, type: expect.stringMatching(/^application\/problem\+json/), body: expect.objectContaining({ code: 'validation_failed', errors: [{ path: '(body)', message: BODY_MESSAGES.notUtf8 }] }) };

  test.each<[string, number[]]>([
    ['a stray 0xFF', [0xff]],
    ['a truncated sequence', [0xe2, 0x82]],
    ['an overlong "/"', [0xc0, 0xaf]],
    ['a surrogate encoded as UTF-8 (CESU)', [0xed, 0xa0, 0x80]],
    ['a code point past U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ])('when a string holds %s, then 422 "(body)" and nothing changes', async (_label, bad) => {
    const before = await fingerprint(system);
    const version = await issueVersion();
    expect(await post('POST', '/api/v1/issues/search', bytes('{"search":"a', bad, 'b"}'))).toEqual(refused);
    expect(await post('PATCH', `/api/v1/issues/${world.issue.key}`, bytes('{"title":"a', bad, 'b"}'))).toEqual(refused);
    expect(await post('POST', `/api/v1/issues/${world.issue.key}/comments`, bytes('{"body":"a', bad, 'b"}'))).toEqual(refused);
    expect(await issueVersion()).toBe(version);
    expect(await fingerprint(system)).toEqual(before);
  });

  test('when the body declares a charset other than UTF-8, then 422 and nothing changes', async () => {
    const version = await issueVersion();
    const utf16 = Buffer.from(`{"title":"UTF-16 title"}`, 'utf16le');
    const res = await post('PATCH', `/api/v1/issues/${world.issue.key}`, utf16, { 'content-type': 'application/json; charset=utf-16le' });
    expect(res).toEqual({ ...refused, body: expect.objectContaining({ code: 'validation_failed', errors: [{ path: '(body)', message: expect.any(String) }] }) });
    expect(await issueVersion()).toBe(version);
  });

  test('when UTF-8 text is sent, with or without a byte order mark or a declared charset, then it is stored as sent', async () => {
    const version = await issueVersion();
    const title = 'Grüße, 日本, 😀';
    const res = await post('PATCH', `/api/v1/issues/${world.issue.key}`, bytes([0xef, 0xbb, 0xbf], `{"title":"${title}","version":${version}}`), {
      'content-type': 'application/json; charset=UTF-8',
    });
    expect({ status: res.status, title: res.body.title }).toEqual({ status: 200, title });
    world.issue.version = res.body.version;
  });
});

// ---------------------------------------------------------------------------- limits
describe('structural limits (BODY_LIMITS)', () => {
  const deep = (open: string, close: string, levels: number, inner = '1') => open.repeat(levels) + inner + close.repeat(levels);
  const keys = (count: number, from = 0) => Array.from({ length: count }, (_, i) => `"k${from + i}":1`).join(',');
  const deepBody = (field: string) => `{"${field}":${deep('[', ']', 400_000)}}`;
  const wideBody = () => `{${keys(90_000)}}`;
  const flatBody = (field: string) => `{"${field}":"${'x'.repeat(800_000)}"}`;
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

  test.each([
    ['POST', () => '/api/v1/issues/search', 'search'],
    ['PATCH', () => `/api/v1/issues/${world.issue.key}`, 'title'],
  ])('%s: an 800 KB body nested 400,000 deep or with 90,000 keys is refused at once, as cheaply as a flat body of the same size', async (method, path, field) => {
    const version = await issueVersion();
    expect(Buffer.byteLength(deepBody(field))).toBeGreaterThan(790_000);
    expect(Buffer.byteLength(wideBody())).toBeGreaterThan(790_000);
    expect(Buffer.byteLength(wideBody())).toBeLessThan(1024 * 1024);
    const times = { deep: [] as number[], wide: [] as number[], flat: [] as number[] };
    for (let round = 0; round < 5; round++) {
      const d = await send(method, path(), deepBody(field));
      expectRefused(d, [{ path: '(body)', message: BODY_MESSAGES.depth }], 'deep');
      const w = await send(method, path(), wideBody());
      expectRefused(w, [{ path: '(body)', message: BODY_MESSAGES.members }], 'wide');
      // The same size in one string: refused by validation (too long), after a cheap parse.
      const f = await send(method, path(), flatBody(field));
      expect(f.status).toBe(422);
      times.deep.push(d.ms);
      times.wide.push(w.ms);
      times.flat.push(f.ms);
    }
    // Parsed and validated, the deep body cost a service 100-200 ms of its thread; refused unparsed, about what the flat one does.
    const margin = { deep: median(times.deep) - median(times.flat), wide: median(times.wide) - median(times.flat) };
    expect({ margin, times, under20ms: margin.deep < 20 && margin.wide < 20 }).toEqual({ margin, times, under20ms: true });
    expect(await issueVersion()).toBe(version);
  });

  test('when a body is exactly at a limit, then validation answers for it; one past, it is refused at "(body)"', async () => {
    const search = (raw: string) => send('POST', '/api/v1/issues/search', raw);
    // Depth: the outer object is level 1.
    const atDepth = await search(`{"search":${deep('[', ']', BODY_LIMITS.depth - 1)}}`);
    expectRefused(atDepth, [{ path: 'search', message: expect.any(String) }]);
    expectRefused(await search(`{"search":${deep('[', ']', BODY_LIMITS.depth)}}`), [{ path: '(body)', message: BODY_MESSAGES.depth }]);
    expectRefused(await search(`{"search":${deep('{"a":', '}', BODY_LIMITS.depth)}}`), [{ path: '(body)', message: BODY_MESSAGES.depth }]);
    // Members: every name: value pair of every object counts.
    const atMembers = await search(`{"search":"x",${keys(BODY_LIMITS.members - 1)}}`);
    expect({ status: atMembers.status, first: atMembers.body.errors[0] }).toEqual({ status: 422, first: { path: 'k0', message: 'unknown field' } });
    expectRefused(await search(`{"search":"x",${keys(BODY_LIMITS.members)}}`), [{ path: '(body)', message: BODY_MESSAGES.members }]);
    // Array elements, over the whole body.
    const ids = (n: number) => Array.from({ length: n }, () => world.queue.id).join(',');
    const atElements = await search(`{"queue_ids":[${ids(BODY_LIMITS.elements)}]}`);
    expectRefused(atElements, [{ path: 'queue_ids', message: expect.any(String) }]);
    expectRefused(await search(`{"queue_ids":[${ids(BODY_LIMITS.elements / 2)}],"status_ids":[${ids(BODY_LIMITS.elements / 2 + 1)}]}`), [
      { path: '(body)', message: BODY_MESSAGES.elements },
    ]);
  });

  test('the widest valid body (a dashboard of 30 widgets, every filter, as many ids as allowed) is accepted', async () => {
    // Id lists filled in turn, up to the dashboard's total.
    let ids = DASHBOARD_LIMITS.ids;
    const list = () => {
      const n = Math.min(FILTER_LIMITS.ids, ids);
      ids -= n;
      return Array.from({ length: n }, () => world.queue.id);
    };
    const widget = () => ({ type: 'issues', title: 'w', filters: { search: 's', queue_ids: list(), status_ids: list(), assignee_ids: list(), mine: false, priority: 'low', category: 'open', overdue: false, label: 'l' } });
    const body = { name: 'Widest', widgets: Array.from({ length: DASHBOARD_LIMITS.widgets }, widget) };
    expect(ids).toBe(0);
    const res = await system.api('PUT', `/api/v1/dashboards/${world.dashboard}`, { token: A.admin.token, body });
    expect({ status: res.status, widgets: res.body.widgets?.length }).toEqual({ status: 200, widgets: DASHBOARD_LIMITS.widgets });
  });

  test('the deepest valid body (an MCP create_dashboard call with widget filters) is accepted', async () => {
    const body = {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'create_dashboard', arguments: { name: 'Deep', widgets: [{ type: 'stats', title: 't', filters: { queue_ids: [world.queue.id] } }] } },
    };
    const res = await system.api('POST', '/mcp', { token: A.admin.token, raw: JSON.stringify(body), headers: MCP_HEADERS });
    expect({ status: res.status, isError: res.body?.result?.isError, name: res.body?.result?.structuredContent?.name }).toEqual({ status: 200, isError: undefined, name: 'Deep' });
  });
});
