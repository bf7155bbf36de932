import { LATEST_PROTOCOL_VERSION, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { issueTicket, PRINCIPAL_HEADER, type UserPrincipal } from '@tracker/kit';
import { devSigningKey, macPayload, sharedKeys } from '@tracker/signing';
import { closedPortUrl, devTicketKeys } from '@tracker/testing';
import { TOOLS } from '../src/domain/tools';
import { version } from '../package.json';
import {
  actOf,
  claimsOf,
  connect,
  fixtures,
  json,
  mcpHeaders,
  vouchedFor,
  newCaller,
  newRequestId,
  post,
  problemIn,
  startAgent,
  startScriptedUpstream,
  type Received,
  type ScriptedUpstream,
  type McpClient,
  type RunningAgent,
} from './harness';

type Service = 'access' | 'issues' | 'statistics' | 'notifications';

let upstreams: Record<Service, ScriptedUpstream>;
let agent: RunningAgent;
const clients: McpClient[] = [];

beforeAll(async () => {
  upstreams = { access: await startScriptedUpstream(), issues: await startScriptedUpstream(), statistics: await startScriptedUpstream(), notifications: await startScriptedUpstream() };
  agent = await startAgent({ ACCESS_URL: upstreams.access.url, ISSUES_URL: upstreams.issues.url, STATISTICS_URL: upstreams.statistics.url, NOTIFICATIONS_URL: upstreams.notifications.url });
});
afterAll(async () => {
  await agent.close();
  await Promise.all(Object.values(upstreams).map((upstream) => upstream.close()));
});
// The fakes are shared by the tests of this file (which run one after another): each test
// starts from fakes that received nothing and answer nothing it did not set.
beforeEach(() => Object.values(upstreams).forEach((upstream) => upstream.reset()));
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** The SDK client for `caller`, closed after the test. */
async function clientFor(caller: UserPrincipal, options: { url?: string; requestId?: string } = {}): Promise<McpClient> {
  const client = await connect(options.url ?? agent.url, caller, options.requestId);
  clients.push(client);
  return client;
}

const callTool = async (client: McpClient, name: string, args?: Record<string, unknown>) =>
  (await client.callTool(args === undefined ? { name } : { name, arguments: args })) as CallToolResult;

const receivedBy = () => ({ access: upstreams.access.received, issues: upstreams.issues.received, statistics: upstreams.statistics.received, notifications: upstreams.notifications.received });
const NOTHING = { access: [], issues: [], statistics: [], notifications: [] };

/** The problem+json the agent answers for arguments its REST operation would refuse. */
const invalidArguments = (errors: Array<{ path: string; message: unknown }>) => ({
  type: 'https://tracker.dev/problems/validation-failed',
  title: 'Invalid request',
  status: 422,
  detail: 'The tool arguments are not valid; nothing was changed.',
  code: 'validation_failed',
  errors,
});

/** The 503 problem for a service that is away: statistics has its own code. */
const unavailable = (service: Service) =>
  service === 'statistics'
    ? { type: 'https://tracker.dev/problems/statistics-unavailable', title: 'Statistics unavailable', status: 503, detail: 'The statistics service is temporarily unavailable. Retry later.', code: 'statistics_unavailable' }
    : { type: 'https://tracker.dev/problems/service-unavailable', title: 'Service unavailable', status: 503, detail: `The ${service} service is temporarily unavailable. Retry later.`, code: 'service_unavailable' };

const errorResult = { isError: true, content: [{ type: 'text', text: expect.any(String) }] };

describe('who may call /mcp', () => {
  const someone = newCaller();
  const getMe = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_me', arguments: {} } };
  const baseHeaders = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  const forGetMe = { audience: 'agent', method: 'POST', path: '/mcp', body: Buffer.from(JSON.stringify(getMe)) } as const;
  /** The gateway's tagged ticket for getMe with its proofs taken out, tagged again. */
  const withoutProofs = () => {
    const gateway = devTicketKeys('gateway');
    const { prf: _, ...claims } = claimsOf(issueTicket(gateway, { ...forGetMe, user: someone }));
    return macPayload(sharedKeys(gateway.key, gateway.trusted).with('agent'), claims);
  };

  test.each([
    ['no principal header', {}],
    ['a user ticket signed by a service, not the gateway', { [PRINCIPAL_HEADER]: issueTicket(devSigningKey('issues'), { ...forGetMe, user: someone }) }],
    ['an expired ticket', { [PRINCIPAL_HEADER]: issueTicket(devSigningKey('gateway'), { ...forGetMe, user: someone }, Date.now() - 120_000) }],
    ['a ticket made for another body', { [PRINCIPAL_HEADER]: issueTicket(devSigningKey('gateway'), { ...forGetMe, body: Buffer.from('{}'), user: someone }) }],
    ['a ticket made for another service', { [PRINCIPAL_HEADER]: issueTicket(devSigningKey('gateway'), { ...forGetMe, audience: 'issues', user: someone }) }],
    ['a service ticket (only users call tools)', { [PRINCIPAL_HEADER]: issueTicket(devSigningKey('gateway'), forGetMe) }],
    ['a header that is not a signed principal', { [PRINCIPAL_HEADER]: 'v1.not-a-principal' }],
    ['a tagged user ticket from a service, not the gateway', { [PRINCIPAL_HEADER]: issueTicket(devTicketKeys('issues'), { ...forGetMe, user: someone }) }],
    ['the gateway\'s tagged ticket without its proofs', { [PRINCIPAL_HEADER]: withoutProofs() }],
  ])('when a tool is called with %s, then 401 problem+json and nothing is forwarded', async (_case, principal) => {
    const response = await post(agent.url, getMe, { ...baseHeaders, ...principal });
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body).toEqual({
      type: 'https://tracker.dev/problems/unauthorized',
      title: 'Authentication required',
      status: 401,
      detail: 'This service accepts only requests forwarded by the gateway.',
      code: 'unauthorized',
    });
    expect(receivedBy()).toEqual(NOTHING);
  });

  test.each(['GET', 'DELETE'])('when %s /mcp is sent by a signed user, then 405 with Allow: POST (a stateless server has no stream and no session)', async (method) => {
    const response = await fetch(new URL('/mcp', agent.url), { method, headers: mcpHeaders(newCaller(), {}, { method }) });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed: send JSON-RPC messages with POST.' },
      id: null,
    });
    expect(receivedBy()).toEqual(NOTHING);
  });
});

describe('initialize and tools/list', () => {
  test('when a client initializes over plain HTTP, then a JSON answer names the server "tracker" with the tools capability, and no session', async () => {
    const message = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    const response = await post(agent.url, message, mcpHeaders(newCaller(), {}, { message }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    // Stateless: any replica answers any request, so there is no session to carry.
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(response.body).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: 'tracker', title: 'Tracker', version },
        instructions: expect.stringContaining('Tracker is a team issue tracker.'),
      },
    });
  });

  test('when the SDK client connects, then it sees server "tracker" with tools, and tools/list lists the 30 tools as defined', async () => {
    const client = await clientFor(newCaller());
    expect(client.getServerVersion()).toEqual({ name: 'tracker', title: 'Tracker', version });
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: false } });
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(30);
    expect(tools).toEqual(TOOLS.map((tool) => tool.definition));
    // Listing tools asks no service anything.
    expect(receivedBy()).toEqual(NOTHING);
  });
});

interface ForwardCase {
  tool: string;
  args: Record<string, unknown>;
  service: Service;
  method: string;
  path: string;
  /** The REST body the service receives; undefined: no body at all. */
  body?: Record<string, unknown>;
  answer: { status: number; value: unknown };
  structured: Record<string, unknown>;
}

const me = fixtures.me();
const users = [fixtures.user(7), fixtures.user(8)];
const queue = fixtures.queue(3);
const statuses = [fixtures.status(11), fixtures.status(12)];
const issue = fixtures.issue(12);
const details = fixtures.issueDetails(12);
const found = fixtures.issues(3);
const statistics = fixtures.statistics();
const dashboard = fixtures.dashboard(2);
const permissions = fixtures.queuePermissions(3);
const permission = fixtures.queuePermission(3, 7);
const widgets = [{ type: 'stats', title: 'Open bugs', filters: { queue_ids: [3], category: 'open' } }];

/** Every tool once, with the REST request a client would send for the same change. */
const FORWARDS: ForwardCase[] = [
  { tool: 'get_me', args: {}, service: 'access', method: 'GET', path: '/api/v1/me', answer: { status: 200, value: me }, structured: me },
  { tool: 'list_users', args: {}, service: 'access', method: 'GET', path: '/api/v1/users', answer: { status: 200, value: users }, structured: { items: users } },
  {
    tool: 'update_user', args: { user_id: 8, active: false, role: 'member' }, service: 'access', method: 'PATCH', path: '/api/v1/users/8',
    body: { active: false, role: 'member' }, answer: { status: 200, value: fixtures.user(8) }, structured: fixtures.user(8),
  },
  {
    tool: 'invite_user', args: { name: 'Grace', email: 'grace@example.com' }, service: 'access', method: 'POST', path: '/api/v1/users',
    body: { name: 'Grace', email: 'grace@example.com' }, answer: { status: 201, value: fixtures.invitedUser(9) }, structured: fixtures.invitedUser(9),
  },
  {
    // No email: the REST body is optional, and an empty one keeps the user's email.
    tool: 'issue_setup_link', args: { user_id: 8 }, service: 'access', method: 'POST', path: '/api/v1/users/8/setup-link',
    body: {}, answer: { status: 200, value: { setup_url: fixtures.invitedUser(8).setup_url } }, structured: { setup_url: fixtures.invitedUser(8).setup_url },
  },
  { tool: 'list_queues', args: {}, service: 'issues', method: 'GET', path: '/api/v1/queues', answer: { status: 200, value: [queue] }, structured: { items: [queue] } },
  {
    tool: 'create_queue', args: { key: 'web', name: 'Website' }, service: 'issues', method: 'POST', path: '/api/v1/queues',
    body: { key: 'web', name: 'Website' }, answer: { status: 201, value: queue }, structured: queue,
  },
  {
    tool: 'update_queue', args: { queue_id: 3, description: 'Public site' }, service: 'issues', method: 'PATCH', path: '/api/v1/queues/3',
    body: { description: 'Public site' }, answer: { status: 200, value: queue }, structured: queue,
  },
  { tool: 'list_statuses', args: {}, service: 'issues', method: 'GET', path: '/api/v1/statuses', answer: { status: 200, value: statuses }, structured: { items: statuses } },
  {
    tool: 'get_queue_permissions', args: { queue_id: 3 }, service: 'access', method: 'GET', path: '/api/v1/queues/3/permissions',
    answer: { status: 200, value: permissions }, structured: permissions,
  },
  {
    tool: 'list_queue_permission_history', args: { queue_id: 3, after_id: 8, limit: 1 }, service: 'access', method: 'GET', path: '/api/v1/queues/3/permissions/history?after_id=8&limit=1',
    answer: { status: 200, value: fixtures.permissionChangePage() }, structured: fixtures.permissionChangePage(),
  },
  {
    tool: 'set_queue_permission', args: { queue_id: 3, user_id: 7, role: 'read-write' }, service: 'access', method: 'PUT', path: '/api/v1/queues/3/permissions/7',
    body: { role: 'read-write' }, answer: { status: 200, value: permission }, structured: permission,
  },
  {
    tool: 'revoke_queue_permission', args: { queue_id: 3, user_id: 7 }, service: 'access', method: 'DELETE', path: '/api/v1/queues/3/permissions/7',
    answer: { status: 200, value: permission }, structured: permission,
  },
  {
    // Defaults are the service's to fill in: only what the agent sent is forwarded.
    tool: 'create_issue', args: { queue_id: 3, title: 'Disk full', labels: ['infra'] }, service: 'issues', method: 'POST', path: '/api/v1/issues',
    body: { queue_id: 3, title: 'Disk full', labels: ['infra'] }, answer: { status: 201, value: issue }, structured: issue,
  },
  {
    tool: 'search_issues', args: { search: 'disk', mine: true, limit: 5 }, service: 'issues', method: 'POST', path: '/api/v1/issues/search',
    body: { search: 'disk', mine: true }, answer: { status: 200, value: found }, structured: { items: found, total: 3, truncated: false },
  },
  {
    // A key is any string to the agent: it must stay one path segment.
    tool: 'get_issue', args: { key: 'A B/1' }, service: 'issues', method: 'GET', path: '/api/v1/issues/A%20B%2F1',
    answer: { status: 200, value: details }, structured: details,
  },
  {
    // Query parameters go in the query string, as given; absent ones are the service's defaults.
    tool: 'list_comments', args: { key: 'WEB-12', after_id: 4, limit: 1 }, service: 'issues', method: 'GET', path: '/api/v1/issues/WEB-12/comments?after_id=4&limit=1',
    answer: { status: 200, value: fixtures.commentPage() }, structured: fixtures.commentPage(),
  },
  ...(['worklogs', 'history', 'links', 'subtasks'] as const).map((list): ForwardCase => ({
    tool: `list_${list}`, args: { key: 'WEB-12' }, service: 'issues', method: 'GET', path: `/api/v1/issues/WEB-12/${list}`,
    answer: { status: 200, value: { items: [], total: 0, next_after_id: null } }, structured: { items: [], total: 0, next_after_id: null },
  })),
  {
    tool: 'update_issue', args: { key: 'WEB-12', version: 4, title: 'Disk full on db-2', assignee_id: null }, service: 'issues', method: 'PATCH', path: '/api/v1/issues/WEB-12',
    body: { version: 4, title: 'Disk full on db-2', assignee_id: null }, answer: { status: 200, value: issue }, structured: issue,
  },
  {
    tool: 'add_comment', args: { key: 'x?y#z', body: 'Fixed.' }, service: 'issues', method: 'POST', path: '/api/v1/issues/x%3Fy%23z/comments',
    body: { body: 'Fixed.' }, answer: { status: 201, value: fixtures.comment() }, structured: fixtures.comment(),
  },
  {
    tool: 'add_worklog', args: { key: 'WEB-12', minutes: 45 }, service: 'issues', method: 'POST', path: '/api/v1/issues/WEB-12/worklogs',
    body: { minutes: 45 }, answer: { status: 201, value: fixtures.worklog() }, structured: fixtures.worklog(),
  },
  {
    tool: 'get_statistics', args: { queue_ids: [3], overdue: true }, service: 'statistics', method: 'POST', path: '/api/v1/statistics',
    body: { queue_ids: [3], overdue: true }, answer: { status: 200, value: statistics }, structured: statistics,
  },
  {
    tool: 'list_dashboards', args: {}, service: 'statistics', method: 'GET', path: '/api/v1/dashboards',
    answer: { status: 200, value: [dashboard] }, structured: { items: [dashboard] },
  },
  {
    tool: 'get_dashboard_statistics', args: { dashboard_id: 2 }, service: 'statistics', method: 'GET', path: '/api/v1/dashboards/2/statistics',
    answer: { status: 200, value: { dashboard_id: 2, widgets: [statistics] } }, structured: { dashboard_id: 2, widgets: [statistics] },
  },
  {
    tool: 'create_dashboard', args: { name: 'Release 2.4', widgets }, service: 'statistics', method: 'POST', path: '/api/v1/dashboards',
    body: { name: 'Release 2.4', widgets }, answer: { status: 201, value: dashboard }, structured: dashboard,
  },
  {
    tool: 'replace_dashboard', args: { dashboard_id: 2, name: 'Release 2.5', widgets: [] }, service: 'statistics', method: 'PUT', path: '/api/v1/dashboards/2',
    body: { name: 'Release 2.5', widgets: [] }, answer: { status: 200, value: dashboard }, structured: dashboard,
  },
  {
    // The feed's page is an object (items and next_cursor): answered as REST answers it.
    tool: 'list_events', args: { after: 'c1_MTI0', types: 'issue.*,comment.added', limit: 2 }, service: 'notifications', method: 'GET',
    path: '/api/v1/events?after=c1_MTI0&types=issue.*%2Ccomment.added&limit=2', answer: { status: 200, value: fixtures.eventPage() }, structured: fixtures.eventPage(),
  },
  {
    tool: 'list_events', args: {}, service: 'notifications', method: 'GET', path: '/api/v1/events',
    answer: { status: 200, value: { items: [], next_cursor: 'c1_MA' } }, structured: { items: [], next_cursor: 'c1_MA' },
  },
];

/** What a service receives for one tool call: nothing but the REST request, as the gateway would forward it. */
function expectRestRequest(request: Received | undefined, expected: ForwardCase, caller: UserPrincipal, requestId: string) {
  const common = { 'x-tracker-principal': expect.any(String), 'x-request-id': requestId, host: expect.any(String), connection: 'keep-alive' };
  const payload = expected.body === undefined ? undefined : JSON.stringify(expected.body);
  expect(request).toEqual({
    method: expected.method,
    url: expected.path,
    headers: payload === undefined ? common : { ...common, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) },
    body: expect.any(String),
  });
  if (payload === undefined) expect(request!.body).toBe('');
  else expect(JSON.parse(request!.body)).toEqual(expected.body);
  // A ticket for this very request and caller: the service decides as for a REST request.
  expect(vouchedFor(request!, expected.service)).toEqual(caller);
}

describe('tools/call forwarding', () => {
  test('then the forwarding table below covers every tool once', () => {
    expect([...new Set(FORWARDS.map((c) => c.tool))].sort()).toEqual(TOOLS.map((tool) => tool.name).sort());
  });

  test.each(FORWARDS.map((c) => [c.tool, c.method, c.path, c.service, c] as const))(
    'when %s is called, then %s %s reaches %s with the caller\'s principal, the request id and the body without path parameters, and the JSON answer comes back structured',
    async (_tool, _method, _path, service, expected) => {
      const caller = newCaller();
      const requestId = newRequestId();
      const client = await clientFor(caller, { requestId });
      upstreams[service].answer(json(expected.answer.status, expected.answer.value));

      const result = await callTool(client, expected.tool, expected.args);

      expect(result).toEqual({ content: [{ type: 'text', text: JSON.stringify(expected.structured) }], structuredContent: expected.structured });
      expect(receivedBy()).toEqual({ ...NOTHING, [service]: [expect.anything()] });
      expectRestRequest(upstreams[service].received[0], expected, caller, requestId);
    },
  );

  test.each(['create_queue', 'create_issue', 'add_comment', 'add_worklog', 'create_dashboard'])(
    'when %s is called with idempotency_key, then the key travels as the Idempotency-Key header and not in the body',
    async (tool) => {
      const forward = FORWARDS.find((c) => c.tool === tool)!;
      const client = await clientFor(newCaller());
      upstreams[forward.service].answer(json(forward.answer.status, forward.answer.value));
      await callTool(client, tool, { ...forward.args, idempotency_key: 'a1b2-c3' });
      const [request] = upstreams[forward.service].received;
      expect(request!.headers['idempotency-key']).toBe('a1b2-c3');
      expect(JSON.parse(request!.body)).toEqual(forward.body);
    },
  );

  test('when a creating tool is called without idempotency_key, then no Idempotency-Key header is sent', async () => {
    const forward = FORWARDS.find((c) => c.tool === 'create_issue')!;
    const client = await clientFor(newCaller());
    upstreams.issues.answer(json(forward.answer.status, forward.answer.value));
    await callTool(client, 'create_issue', forward.args);
    expect(upstreams.issues.received[0]!.headers).not.toHaveProperty('idempotency-key');
  });

  /** One tool of each service the agent calls, with what that service answers. */
  const ONE_PER_SERVICE = [
    ['get_me', 'access', me],
    ['list_statuses', 'issues', statuses],
    ['list_dashboards', 'statistics', [dashboard]],
  ] as const;

  test('when the gateway tags its ticket, then each service receives as the agent\'s proof the gateway\'s proof addressed to it, and gets the caller from it', async () => {
    const caller = newCaller();
    const client = await clientFor(caller);
    for (const [tool, service, answer] of ONE_PER_SERVICE) {
      upstreams[service].answer(json(200, answer));
      await callTool(client, tool, {});
      const [request] = upstreams[service].received;
      expect(actOf(request!)).toMatch(/^m1\./);
      // The caller in the gateway's signed vouch, not bare: the service could tag a bare one itself.
      const proof = claimsOf(actOf(request!));
      expect(proof).toMatchObject({ use: 'proof', iss: 'gateway', aud: service, vch: expect.stringMatching(/^v1\./) });
      expect(proof).not.toHaveProperty('sub');
      expect(claimsOf(proof.vch)).toMatchObject({ use: 'vouch', iss: 'gateway', sub: caller });
      expect(vouchedFor(request!, service)).toEqual(caller);
    }
  });

  test('when the gateway signs its ticket (INTERNAL_TICKETS=signed), then the agent hands that very ticket on to each service, which gets the caller from it', async () => {
    const caller = newCaller();
    for (const [tool, service, answer] of ONE_PER_SERVICE) {
      upstreams[service].answer(json(200, answer));
      const message = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: {} } };
      const headers = mcpHeaders(caller, {}, { message });
      const response = await post(agent.url, message, headers);
      expect(response.body).toMatchObject({ id: 1, result: { structuredContent: expect.any(Object) } });
      const [request] = upstreams[service].received;
      expect(actOf(request!)).toBe(headers[PRINCIPAL_HEADER]);
      expect(vouchedFor(request!, service)).toEqual(caller);
    }
  });

  test('when two callers use the same tool, then each call is signed as its own caller', async () => {
    const [ada, bob] = [newCaller('admin'), newCaller('member')];
    const [adaClient, bobClient] = [await clientFor(ada), await clientFor(bob)];
    upstreams.access.answer(json(200, me));
    await callTool(adaClient, 'get_me', {});
    await callTool(bobClient, 'get_me', {});
    const signed = upstreams.access.received.map((request) => vouchedFor(request, 'access'));
    expect(signed).toEqual([ada, bob]);
  });

  test.each([
    ['no request id', {}],
    ['an invalid request id', { 'x-request-id': 'not a valid id' }],
  ])('when a tool is called with %s, then the request id the agent answers with is the one the service receives', async (_case, header) => {
    upstreams.access.answer(json(200, me));
    const message = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_me', arguments: {} } };
    const response = await post(agent.url, message, mcpHeaders(newCaller(), header, { message }));
    expect(response.body).toEqual({ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: JSON.stringify(me) }], structuredContent: me } });
    const answered = response.headers.get('x-request-id');
    expect(answered).toMatch(/^[0-9a-f-]{36}$/);
    expect(upstreams.access.received.map((r) => r.headers['x-request-id'])).toEqual([answered]);
  });

  test('when a tool without arguments is called with no `arguments` at all, then it is called as with {}', async () => {
    const client = await clientFor(newCaller());
    upstreams.issues.answer(json(200, statuses));
    expect(await callTool(client, 'list_statuses')).toEqual({
      content: [{ type: 'text', text: JSON.stringify({ items: statuses }) }],
      structuredContent: { items: statuses },
    });
    expect(upstreams.issues.received.map((r) => [r.method, r.url])).toEqual([['GET', '/api/v1/statuses']]);
  });
});

describe('refusals of the services', () => {
  // Indented on purpose: a body the agent re-serialised would no longer be byte-equal.
  const conflict = JSON.stringify(
    {
      type: 'https://tracker.dev/problems/version-conflict',
      title: 'Version conflict',
      status: 409,
      detail: 'The issue was changed by someone else. Read it again and retry.',
      code: 'version_conflict',
      version: 5,
    },
    null,
    2,
  );

  test('when update_issue meets 409 version_conflict, then an error result whose text is exactly the service\'s body (with `version`), and no structured content', async () => {
    const client = await clientFor(newCaller());
    upstreams.issues.answer({ status: 409, body: conflict, headers: { 'content-type': 'application/problem+json' } });
    const result = await callTool(client, 'update_issue', { key: 'WEB-12', version: 4, title: 'Stale' });
    expect(result).toEqual({ isError: true, content: [{ type: 'text', text: conflict }] });
    expect(upstreams.issues.received).toHaveLength(1);
  });

  test.each([
    { tool: 'create_queue', args: { key: 'WEB', name: 'Website' }, service: 'issues', status: 403, code: 'forbidden', title: 'Not enough rights' },
    { tool: 'get_issue', args: { key: 'WEB-404' }, service: 'issues', status: 404, code: 'not_found', title: 'Not found' },
    { tool: 'create_queue', args: { key: 'WEB', name: 'Website' }, service: 'issues', status: 409, code: 'queue_key_taken', title: 'Queue key taken' },
    { tool: 'update_user', args: { user_id: 1, role: 'member' }, service: 'access', status: 409, code: 'last_active_admin', title: 'Last active admin' },
    { tool: 'invite_user', args: { name: 'Grace', email: 'ada@example.com' }, service: 'access', status: 409, code: 'email_taken', title: 'Email taken' },
    // The service's own 422 (a status of another queue) is relayed too, not mistaken for the agent's.
    { tool: 'update_issue', args: { key: 'WEB-12', status_id: 99 }, service: 'issues', status: 422, code: 'validation_failed', title: 'Invalid request' },
    { tool: 'replace_dashboard', args: { dashboard_id: 2, name: 'Mine', widgets: [] }, service: 'statistics', status: 403, code: 'forbidden', title: 'Not enough rights' },
  ] as const)('when $tool is refused by $service with $status $code, then the error result carries that problem as sent', async ({ tool, args, service, status, code, title }) => {
    const client = await clientFor(newCaller());
    const body = JSON.stringify({ type: `https://tracker.dev/problems/${code.replace(/_/g, '-')}`, title, status, detail: `Refused: ${code}.`, code });
    upstreams[service].answer({ status, body, headers: { 'content-type': 'application/problem+json' } });
    expect(await callTool(client, tool, args)).toEqual({ isError: true, content: [{ type: 'text', text: body }] });
    expect(upstreams[service].received).toHaveLength(1);
  });
});

describe('invalid arguments', () => {
  const anyMessage = expect.any(String);

  test.each<[string, string, Record<string, unknown> | undefined, Array<{ path: string; message: unknown }>]>([
    ['an unknown field', 'create_issue', { queue_id: 3, title: 'Disk full', colour: 'red' }, [{ path: 'colour', message: 'unknown field' }]],
    ['a field of the wrong type', 'create_issue', { queue_id: '3', title: 'Disk full' }, [{ path: 'queue_id', message: anyMessage }]],
    ['a value out of range', 'add_worklog', { key: 'WEB-12', minutes: 1441 }, [{ path: 'minutes', message: anyMessage }]],
    ['a value out of an enum', 'set_queue_permission', { queue_id: 3, user_id: 7, role: 'owner' }, [{ path: 'role', message: anyMessage }]],
    ['a missing required field', 'create_issue', { queue_id: 3 }, [{ path: 'title', message: anyMessage }]],
    ['no arguments at all where some are required', 'create_issue', undefined, [{ path: 'queue_id', message: anyMessage }, { path: 'title', message: anyMessage }]],
    ['a missing path parameter', 'get_issue', {}, [{ path: 'key', message: anyMessage }]],
    ['one of two path parameters missing', 'revoke_queue_permission', { queue_id: 3 }, [{ path: 'user_id', message: anyMessage }]],
    ['a path parameter of the wrong type', 'update_queue', { queue_id: 'WEB', name: 'Website' }, [{ path: 'queue_id', message: anyMessage }]],
    ['an empty issue key', 'add_comment', { key: '', body: 'Hello' }, [{ path: 'key', message: anyMessage }]],
    ['an email that is not one', 'invite_user', { name: 'Grace', email: 'grace' }, [{ path: 'email', message: anyMessage }]],
    ['an idempotency_key where the REST operation takes none', 'invite_user', { name: 'Grace', email: 'grace@example.com', idempotency_key: 'k1' }, [{ path: 'idempotency_key', message: 'unknown field' }]],
    ['limit 0', 'search_issues', { limit: 0 }, [{ path: 'limit', message: anyMessage }]],
    ['limit 2001', 'search_issues', { limit: 2001 }, [{ path: 'limit', message: anyMessage }]],
    ['a fractional limit', 'search_issues', { limit: 2.5 }, [{ path: 'limit', message: anyMessage }]],
    ['limit on a tool other than search_issues', 'get_statistics', { limit: 10 }, [{ path: 'limit', message: 'unknown field' }]],
    ['an unknown field on a tool without a body', 'get_me', { verbose: true }, [{ path: 'verbose', message: 'unknown field' }]],
    ['a bad field inside a list', 'create_dashboard', { name: 'Board', widgets: [{ type: 'stats' }, { type: 'pie' }] }, [{ path: 'widgets.1.type', message: anyMessage }]],
    [
      'several faults at once',
      'create_issue',
      { title: 5, priority: 'urgent', colour: 'red' },
      [
        { path: 'queue_id', message: anyMessage },
        { path: 'title', message: anyMessage },
        { path: 'priority', message: anyMessage },
        { path: 'colour', message: 'unknown field' },
      ],
    ],
  ])('when %s is sent to %s, then an error result with 422 validation_failed listing the field paths, and nothing is forwarded', async (_case, tool, args, errors) => {
    const client = await clientFor(newCaller());
    for (const upstream of Object.values(upstreams)) upstream.answer(json(200, {}));

    const result = await callTool(client, tool, args);

    expect(result).toEqual(errorResult);
    expect(problemIn(result)).toEqual(invalidArguments(errors));
    expect(receivedBy()).toEqual(NOTHING);
  });
});

describe('search_issues', () => {
  const searchWith = async (answer: ReturnType<typeof json>, args: Record<string, unknown>) => {
    const client = await clientFor(newCaller());
    upstreams.issues.answer(answer);
    const result = await callTool(client, 'search_issues', args);
    expect(upstreams.issues.received.map((r) => [r.method, r.url, JSON.parse(r.body)])).toEqual([['POST', '/api/v1/issues/search', { ...args, limit: undefined }]]);
    return result;
  };
  const structured = (value: Record<string, unknown>) => ({ content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value });

  test('when no limit is given and 60 issues match, then the first 50 come back with total 60 and truncated true', async () => {
    const matches = fixtures.issues(60);
    const result = await searchWith(json(200, matches), { search: 'disk' });
    expect(result).toEqual(structured({ items: matches.slice(0, 50), total: 60, truncated: true }));
  });

  test('when no limit is given and exactly 50 issues match, then all 50 come back, not truncated', async () => {
    const matches = fixtures.issues(50);
    const result = await searchWith(json(200, matches), {});
    expect(result).toEqual(structured({ items: matches, total: 50, truncated: false }));
  });

  test('when limit 10 is given and 5 issues match, then the 5 come back with total 5 and truncated false', async () => {
    const matches = fixtures.issues(5);
    const result = await searchWith(json(200, matches), { mine: true, limit: 10 });
    expect(result).toEqual(structured({ items: matches, total: 5, truncated: false }));
  });

  test('when nothing matches, then an empty list, total 0, not truncated', async () => {
    const result = await searchWith(json(200, []), { label: 'none', limit: 1 });
    expect(result).toEqual(structured({ items: [], total: 0, truncated: false }));
  });

  test('when the service caps the search (X-Truncated: true, 2000 issues) and limit is 2000, then all 2000 come back with truncated true', async () => {
    const matches = fixtures.issues(2000);
    const result = await searchWith(json(200, matches, { 'X-Total-Count': '2000', 'X-Truncated': 'true' }), { limit: 2000 });
    expect(result).toEqual(structured({ items: matches, total: 2000, truncated: true }));
  });

  test('when the service says X-Truncated: false and all matches fit the limit, then truncated is false', async () => {
    const matches = fixtures.issues(7);
    const result = await searchWith(json(200, matches, { 'X-Total-Count': '7', 'X-Truncated': 'false' }), { limit: 7 });
    expect(result).toEqual(structured({ items: matches, total: 7, truncated: false }));
  });

  test('when the service counts its matches in X-Total-Count, then total is that count, not the length of the list', async () => {
    const matches = fixtures.issues(30);
    const result = await searchWith(json(200, matches, { 'X-Total-Count': '2000', 'X-Truncated': 'true' }), { limit: 10 });
    expect(result).toEqual(structured({ items: matches.slice(0, 10), total: 2000, truncated: true }));
  });
});

describe('services that are away', () => {
  const CALLS: Array<[Service, string, Record<string, unknown>]> = [
    ['access', 'get_me', {}],
    ['issues', 'get_issue', { key: 'WEB-12' }],
    ['issues', 'update_issue', { key: 'WEB-12', title: 'Down' }],
    ['statistics', 'get_statistics', {}],
    ['statistics', 'list_dashboards', {}],
    ['notifications', 'list_events', {}],
  ];

  describe('down (nothing listens on their port)', () => {
    let down: RunningAgent;
    beforeAll(async () => {
      down = await startAgent({ ACCESS_URL: await closedPortUrl(), ISSUES_URL: await closedPortUrl(), STATISTICS_URL: await closedPortUrl(), NOTIFICATIONS_URL: await closedPortUrl() });
    });
    afterAll(() => down.close());

    test.each(CALLS)('when %s is down and %s is called, then an error result with its 503 problem', async (service, tool, args) => {
      const client = await clientFor(newCaller(), { url: down.url });
      const started = Date.now();
      const result = await callTool(client, tool, args);
      expect(result).toEqual(errorResult);
      expect(problemIn(result)).toEqual(unavailable(service));
      expect(Date.now() - started).toBeLessThan(2000);
    });
  });

  describe('hanging (they accept the request and never answer), with UPSTREAM_TIMEOUT_MS 300', () => {
    let slow: RunningAgent;
    beforeAll(async () => {
      slow = await startAgent({ ACCESS_URL: upstreams.access.url, ISSUES_URL: upstreams.issues.url, STATISTICS_URL: upstreams.statistics.url, NOTIFICATIONS_URL: upstreams.notifications.url, UPSTREAM_TIMEOUT_MS: '300' });
    });
    afterAll(() => slow.close());

    test.each(CALLS)('when %s hangs and %s is called, then after about 300 ms an error result with its 503 problem', async (service, tool, args) => {
      const client = await clientFor(newCaller(), { url: slow.url });
      upstreams[service].answer('hang');
      const started = Date.now();
      const result = await callTool(client, tool, args);
      const elapsed = Date.now() - started;
      expect(result).toEqual(errorResult);
      expect(problemIn(result)).toEqual(unavailable(service));
      // It did wait for the service (which did receive the call), but not much longer than the bound.
      expect(upstreams[service].received).toHaveLength(1);
      expect(elapsed).toBeGreaterThanOrEqual(250);
      expect(elapsed).toBeLessThan(3000);
    });

    test('when a service stops in the middle of its answer, then after about 300 ms an error result with 503 service_unavailable', async () => {
      const client = await clientFor(newCaller(), { url: slow.url });
      upstreams.issues.answer('hang-mid-body');
      const started = Date.now();
      const result = await callTool(client, 'get_issue', { key: 'WEB-12' });
      expect(problemIn(result)).toEqual(unavailable('issues'));
      expect(Date.now() - started).toBeLessThan(3000);
    });

    test('when a service closes the connection without answering, then an error result with 503 service_unavailable', async () => {
      const client = await clientFor(newCaller(), { url: slow.url });
      upstreams.issues.answer('drop');
      const started = Date.now();
      const result = await callTool(client, 'add_comment', { key: 'WEB-12', body: 'Lost?' });
      expect(problemIn(result)).toEqual(unavailable('issues'));
      expect(Date.now() - started).toBeLessThan(3000);
    });

    test('when the client leaves before its answer, then that call is dropped and the agent answers the next one', async () => {
      const caller = newCaller();
      const message = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get_issue', arguments: { key: 'WEB-12' } } };
      upstreams.issues.answer('hang');
      const leaving = new AbortController();
      const call = fetch(`${slow.url}/mcp`, { method: 'POST', headers: mcpHeaders(caller, {}, { message }), body: JSON.stringify(message), signal: leaving.signal });
      const forwarded = Date.now() + 2000;
      while (upstreams.issues.received.length === 0 && Date.now() < forwarded) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(upstreams.issues.received).toHaveLength(1);
      leaving.abort();
      await expect(call).rejects.toThrow();
      // The call's 300 ms bound ends after its client left: its answer goes nowhere, and nothing breaks.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const client = await clientFor(caller, { url: slow.url });
      upstreams.access.answer(json(200, me));
      expect(await callTool(client, 'get_me', {})).toEqual({ content: [{ type: 'text', text: JSON.stringify(me) }], structuredContent: me });
    });

    test('when a service answers within the bound, then the answer comes back as usual', async () => {
      const client = await clientFor(newCaller(), { url: slow.url });
      upstreams.access.answer(json(200, me));
      expect(await callTool(client, 'get_me', {})).toEqual({ content: [{ type: 'text', text: JSON.stringify(me) }], structuredContent: me });
    });
  });
});

describe('services answering out of contract', () => {
  // A success must be JSON (libs/contracts); anything else is a service that cannot be relied on.
  test.each([
    { what: 'an HTML page', service: 'access' as const, tool: 'get_me', args: {}, body: '<html>oops</html>', code: 'service_unavailable' },
    { what: 'an empty body', service: 'issues' as const, tool: 'create_issue', args: { queue_id: 3, title: 'Disk full' }, body: '', code: 'service_unavailable' },
    { what: 'truncated JSON', service: 'statistics' as const, tool: 'get_statistics', args: {}, body: '{"total":', code: 'statistics_unavailable' },
  ])('when $service answers 2xx with $what, then an error result with 503 $code (not a JSON-RPC error quoting the parser)', async ({ service, tool, args, body, code }) => {
    const client = await clientFor(newCaller());
    upstreams[service].answer({ status: 200, body, headers: { 'content-type': 'text/html' } });
    const result = await callTool(client, tool, args);
    expect(result).toEqual(errorResult);
    expect(problemIn(result)).toEqual(unavailable(service));
    expect(problemIn(result).code).toBe(code);
  });
});

describe('unknown tools', () => {
  test('when a tool that does not exist is called through the SDK, then a JSON-RPC error -32602 and nothing is forwarded', async () => {
    const client = await clientFor(newCaller());
    await expect(client.callTool({ name: 'delete_everything', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool: delete_everything. tools/list names every tool.'),
    });
    expect(receivedBy()).toEqual(NOTHING);
  });

  test('when a tool that does not exist is called over plain HTTP, then 200 with a JSON-RPC error -32602, not a tool result', async () => {
    const message = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'delete_everything', arguments: {} } };
    const response = await post(agent.url, message, mcpHeaders(newCaller(), {}, { message }));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32602, message: 'Unknown tool: delete_everything. tools/list names every tool.' },
    });
    expect(receivedBy()).toEqual(NOTHING);
  });
});

describe('metrics', () => {
  // An agent of its own: the counter then holds exactly this test's calls.
  let counted: RunningAgent;
  beforeAll(async () => {
    counted = await startAgent({ ACCESS_URL: upstreams.access.url, ISSUES_URL: upstreams.issues.url, STATISTICS_URL: await closedPortUrl() });
  });
  afterAll(() => counted.close());

  test('when tools are called, then tracker_agent_tool_calls_total counts each call by tool and status (422 for refused arguments, none for unknown tools)', async () => {
    const client = await clientFor(newCaller(), { url: counted.url });
    upstreams.access.answer(json(200, me));
    await callTool(client, 'get_me', {});
    await callTool(client, 'get_me', {});
    upstreams.issues.answer(json(201, queue));
    await callTool(client, 'create_queue', { key: 'WEB', name: 'Website' });
    upstreams.issues.answer({ status: 404, body: '{"code":"not_found"}', headers: { 'content-type': 'application/problem+json' } });
    await callTool(client, 'get_issue', { key: 'WEB-404' });
    await callTool(client, 'get_issue', {});
    await callTool(client, 'get_statistics', {});
    upstreams.access.answer({ status: 200, body: 'not json' });
    await callTool(client, 'list_users', {});
    await client.callTool({ name: 'delete_everything', arguments: {} }).catch(() => undefined);

    const metric = await counted.service.metrics.registry.getSingleMetric('tracker_agent_tool_calls_total')!.get();
    const counts = metric.values.map(({ labels, value }) => ({ tool: labels.tool, status: labels.status, value }));
    expect(counts.sort((a, b) => `${a.tool} ${a.status}`.localeCompare(`${b.tool} ${b.status}`))).toEqual([
      { tool: 'create_queue', status: '201', value: 1 },
      { tool: 'get_issue', status: '404', value: 1 },
      { tool: 'get_issue', status: '422', value: 1 },
      { tool: 'get_me', status: '200', value: 2 },
      { tool: 'get_statistics', status: '503', value: 1 },
      { tool: 'list_users', status: '503', value: 1 },
    ]);
  });
});
