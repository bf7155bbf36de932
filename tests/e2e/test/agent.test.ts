import { randomBytes } from 'node:crypto';
import { connectAgent, problemOf, seedWorkspace, startSystem, type AgentClient, type System } from '@tracker/system-tests-support';
import { agentWalk, call } from './agent-walk';

/**
 * The agent tool interface (/mcp) through the gateway with the official MCP SDK client:
 * every tool beside its REST twin for the same tokens, isolation between workspaces,
 * revocation and deactivation on the very next request, and the gateway's checks.
 */
let system: System;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;
let other: Awaited<ReturnType<typeof seedWorkspace>>;
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

beforeAll(async () => {
  system = await startSystem();
  [ws, other] = await Promise.all([seedWorkspace(system, 'Acme'), seedWorkspace(system, 'Globex')]);
}, 120_000);
afterAll(() => system?.stop());

test('an agent walks through every tool: creations, a move, comments and time, a stale version and invalid arguments', async () => {
  await agentWalk(system);
}, 60_000);

describe('every tool beside its REST endpoint, for the same tokens', () => {
  type Who = 'admin' | 'read-write' | 'read-only' | 'no grant' | 'other workspace';
  const WHO: Who[] = ['admin', 'read-write', 'read-only', 'no grant', 'other workspace'];
  const token: Record<Who, string> = {} as never;
  const userId: Record<Who, number> = {} as never;
  const clients: Partial<Record<Who, AgentClient>> = {};
  let queueId: number;
  let issueKey: string;
  let dashboardId: number;
  let spareUserId: number;

  beforeAll(async () => {
    const add = (name: string) => system.admin('user', 'add', '--workspace', String(ws.id), '--name', name);
    const [rw, ro, none, spare] = await Promise.all([add('rw'), add('ro'), add('none'), add('spare')]);
    Object.assign(token, { admin: ws.admin.token, 'read-write': rw.token, 'read-only': ro.token, 'no grant': none.token, 'other workspace': other.admin.token });
    Object.assign(userId, { admin: ws.admin.id, 'read-write': rw.user_id, 'read-only': ro.user_id, 'no grant': none.user_id, 'other workspace': other.admin.id });
    spareUserId = spare.user_id;
    const queue = await system.api('POST', '/api/v1/queues', { token: ws.admin.token, body: { key: `M${randomBytes(2).toString('hex')}`, name: 'Matrix' } });
    queueId = queue.body.id;
    for (const [who, role] of [['read-write', 'read-write'], ['read-only', 'read-only']] as const) {
      expect((await system.api('PUT', `/api/v1/queues/${queueId}/permissions/${userId[who]}`, { token: ws.admin.token, body: { role } })).status).toBe(200);
    }
    issueKey = (await system.api('POST', '/api/v1/issues', { token: ws.admin.token, body: { queue_id: queueId, title: 'Matrix issue' } })).body.key;
    const dashboard = await system.api('POST', '/api/v1/dashboards', { token: ws.admin.token, body: { name: 'Matrix', widgets: [{ type: 'stats', filters: { queue_ids: [queueId] } }] } });
    dashboardId = dashboard.body.id;
    for (const who of WHO) clients[who] = await connectAgent(system.gatewayUrl, token[who]);
  }, 60_000);
  afterAll(() => Promise.all(Object.values(clients).map((c) => c!.close())));

  /** A tool call and the same operation over REST: method, path, body. */
  interface Case {
    tool: string;
    args: () => Record<string, unknown>;
    rest: (args: Record<string, any>) => [string, string, unknown?];
    /** Reads: the tool's answer must be the REST answer itself. */
    read?: true;
  }
  const unique = () => `K${randomBytes(3).toString('hex')}`;
  const CASES: Case[] = [
    { tool: 'get_me', read: true, args: () => ({}), rest: () => ['GET', '/api/v1/me'] },
    { tool: 'list_queues', read: true, args: () => ({}), rest: () => ['GET', '/api/v1/queues'] },
    { tool: 'list_statuses', read: true, args: () => ({}), rest: () => ['GET', '/api/v1/statuses'] },
    { tool: 'list_users', read: true, args: () => ({}), rest: () => ['GET', '/api/v1/users'] },
    { tool: 'get_issue', read: true, args: () => ({ key: issueKey }), rest: (a) => ['GET', `/api/v1/issues/${a.key}`] },
    // The list pages: query parameters as arguments, sent in the query string.
    { tool: 'list_comments', read: true, args: () => ({ key: issueKey, after_id: 0, limit: 2 }), rest: (a) => ['GET', `/api/v1/issues/${a.key}/comments?after_id=${a.after_id}&limit=${a.limit}`] },
    ...(['worklogs', 'history', 'links', 'subtasks'] as const).map((list): Case => ({
      tool: `list_${list}`,
      read: true,
      args: () => ({ key: issueKey }),
      rest: (a: Record<string, any>): [string, string] => ['GET', `/api/v1/issues/${a.key}/${list}`],
    })),
    { tool: 'search_issues', read: true, args: () => ({ queue_ids: [queueId] }), rest: (a) => ['POST', '/api/v1/issues/search', a] },
    { tool: 'list_dashboards', read: true, args: () => ({}), rest: () => ['GET', '/api/v1/dashboards'] },
    { tool: 'get_queue_permissions', read: true, args: () => ({ queue_id: queueId }), rest: (a) => ['GET', `/api/v1/queues/${a.queue_id}/permissions`] },
    {
      tool: 'list_queue_permission_history',
      read: true,
      args: () => ({ queue_id: queueId, after_id: 0, limit: 1 }),
      rest: (a) => ['GET', `/api/v1/queues/${a.queue_id}/permissions/history?after_id=${a.after_id}&limit=${a.limit}`],
    },
    { tool: 'get_statistics', args: () => ({ queue_ids: [queueId] }), rest: (a) => ['POST', '/api/v1/statistics', a] },
    // Not compared as a read: the feed may grow between the two calls while events are recorded.
    { tool: 'list_events', args: () => ({ types: 'issue.*', limit: 5 }), rest: (a) => ['GET', `/api/v1/events?types=${a.types}&limit=${a.limit}`] },
    // Not compared as a read: as_of may move between the two calls while events are applied.
    { tool: 'get_dashboard_statistics', args: () => ({ dashboard_id: dashboardId }), rest: (a) => ['GET', `/api/v1/dashboards/${a.dashboard_id}/statistics`] },
    { tool: 'create_queue', args: () => ({ key: unique(), name: 'Made' }), rest: (a) => ['POST', '/api/v1/queues', a] },
    { tool: 'update_queue', args: () => ({ queue_id: queueId, description: 'changed' }), rest: ({ queue_id, ...b }) => ['PATCH', `/api/v1/queues/${queue_id}`, b] },
    { tool: 'update_user', args: () => ({ user_id: spareUserId, name: 'Spare' }), rest: ({ user_id, ...b }) => ['PATCH', `/api/v1/users/${user_id}`, b] },
    // A new email for each call: the REST twin's invitation must not meet the tool's (409 email_taken).
    { tool: 'invite_user', args: () => ({ name: 'Invited', email: `${unique().toLowerCase()}@example.com` }), rest: (a) => ['POST', '/api/v1/users', a] },
    { tool: 'issue_setup_link', args: () => ({ user_id: spareUserId, email: 'spare@example.com' }), rest: ({ user_id, ...b }) => ['POST', `/api/v1/users/${user_id}/setup-link`, b] },
    { tool: 'create_issue', args: () => ({ queue_id: queueId, title: 'Made' }), rest: (a) => ['POST', '/api/v1/issues', a] },
    { tool: 'update_issue', args: () => ({ key: issueKey, priority: 'high' }), rest: ({ key, ...b }) => ['PATCH', `/api/v1/issues/${key}`, b] },
    { tool: 'add_comment', args: () => ({ key: issueKey, body: 'Seen' }), rest: ({ key, ...b }) => ['POST', `/api/v1/issues/${key}/comments`, b] },
    { tool: 'add_worklog', args: () => ({ key: issueKey, minutes: 5 }), rest: ({ key, ...b }) => ['POST', `/api/v1/issues/${key}/worklogs`, b] },
    { tool: 'create_dashboard', args: () => ({ name: 'Mine', widgets: [{ type: 'time', filters: { queue_ids: [queueId] } }] }), rest: (a) => ['POST', '/api/v1/dashboards', a] },
    { tool: 'replace_dashboard', args: () => ({ dashboard_id: dashboardId, name: 'Matrix', widgets: [{ type: 'stats', filters: { queue_ids: [queueId] } }] }), rest: ({ dashboard_id, ...b }) => ['PUT', `/api/v1/dashboards/${dashboard_id}`, b] },
    { tool: 'set_queue_permission', args: () => ({ queue_id: queueId, user_id: spareUserId, role: 'read-only' }), rest: ({ queue_id, user_id, ...b }) => ['PUT', `/api/v1/queues/${queue_id}/permissions/${user_id}`, b] },
    { tool: 'revoke_queue_permission', args: () => ({ queue_id: queueId, user_id: spareUserId }), rest: (a) => ['DELETE', `/api/v1/queues/${a.queue_id}/permissions/${a.user_id}`] },
  ];

  /** The outcome in words both faces can be held to: `ok`, or the refusal's status and code. */
  const outcomeOfRest = (status: number, body: any) => (status < 300 ? 'ok' : `${status} ${body.code}`);
  const outcomeOfTool = (problem: Record<string, any> | null) => (problem ? `${problem.status} ${problem.code}` : 'ok');
  const wrapped = (body: unknown) => (Array.isArray(body) ? { items: body } : body);

  test('then each tool has the outcome of its REST twin for admin, read-write, read-only, no grant and another workspace', async () => {
    expect(CASES.map((c) => c.tool).sort()).toEqual((await clients.admin!.listTools()).tools.map((t) => t.name).sort());
    const table: Record<string, Record<Who, string>> = {};
    for (const testCase of CASES) {
      table[testCase.tool] = {} as Record<Who, string>;
      for (const who of WHO) {
        const args = testCase.args();
        const [method, path, body] = testCase.rest(testCase.args());
        const rest = await system.api(method, path, { token: token[who], body });
        const tool = await call(clients[who]!, testCase.tool, args);
        const outcome = outcomeOfRest(rest.status, rest.body);
        expect([testCase.tool, who, outcomeOfTool(tool.problem)]).toEqual([testCase.tool, who, outcome]);
        if (tool.problem) expect([testCase.tool, who, tool.problem]).toEqual([testCase.tool, who, rest.body]);
        if (testCase.read && !tool.problem) {
          const expected = testCase.tool === 'search_issues' ? { items: rest.body.slice(0, 50), total: rest.body.length, truncated: false } : wrapped(rest.body);
          expect([testCase.tool, who, tool.data]).toEqual([testCase.tool, who, expected]);
        }
        table[testCase.tool][who] = outcome;
      }
    }
    // The matrix is not trivially alike: it holds what docs/decisions.md says of each role.
    expect(table.get_issue).toEqual({ admin: 'ok', 'read-write': 'ok', 'read-only': 'ok', 'no grant': '404 not_found', 'other workspace': '404 not_found' });
    expect(table.list_history).toEqual(table.get_issue);
    expect(table.update_issue).toEqual({ admin: 'ok', 'read-write': 'ok', 'read-only': '403 forbidden', 'no grant': '404 not_found', 'other workspace': '404 not_found' });
    expect(table.create_queue).toEqual({ admin: 'ok', 'read-write': '403 forbidden', 'read-only': '403 forbidden', 'no grant': '403 forbidden', 'other workspace': 'ok' });
    expect(table.set_queue_permission).toEqual({ admin: 'ok', 'read-write': '403 forbidden', 'read-only': '403 forbidden', 'no grant': '404 not_found', 'other workspace': '404 not_found' });
    expect(table.search_issues).toEqual({ admin: 'ok', 'read-write': 'ok', 'read-only': 'ok', 'no grant': '403 forbidden', 'other workspace': '403 forbidden' });
    expect(table.replace_dashboard).toEqual({ admin: 'ok', 'read-write': '403 forbidden', 'read-only': '403 forbidden', 'no grant': '404 not_found', 'other workspace': '404 not_found' });
    expect(table.get_dashboard_statistics).toEqual(table.get_issue);
    expect(table.get_queue_permissions).toEqual({ admin: 'ok', 'read-write': '403 forbidden', 'read-only': '403 forbidden', 'no grant': '404 not_found', 'other workspace': '404 not_found' });
    expect(table.list_queue_permission_history).toEqual(table.get_queue_permissions);
    expect(table.update_user['read-write']).toBe('403 forbidden');
    // Every member reads the feed: each event only to whoever may read its object.
    expect(table.list_events).toEqual({ admin: 'ok', 'read-write': 'ok', 'read-only': 'ok', 'no grant': 'ok', 'other workspace': 'ok' });
    // Another workspace's admin invites into their own workspace, and cannot reach this one's users.
    expect(table.invite_user).toEqual({ admin: 'ok', 'read-write': '403 forbidden', 'read-only': '403 forbidden', 'no grant': '403 forbidden', 'other workspace': 'ok' });
    expect(table.issue_setup_link).toEqual({ admin: 'ok', 'read-write': '403 forbidden', 'read-only': '403 forbidden', 'no grant': '403 forbidden', 'other workspace': '404 not_found' });
  }, 120_000);

  test('when a read-write member comments through a tool, then the comment is authored by them, as over REST', async () => {
    const comment = await call(clients['read-write']!, 'add_comment', { key: issueKey, body: 'By the member' });
    expect(comment.data).toMatchObject({ author_id: userId['read-write'], body: 'By the member' });
    const read = await system.api('GET', `/api/v1/issues/${issueKey}`, { token: ws.admin.token });
    expect(read.body.comments.at(-1)).toEqual(comment.data);
  });

  test('when another workspace names this workspace\'s objects, then they do not exist for it', async () => {
    const stranger = clients['other workspace']!;
    expect((await call(stranger, 'list_queues')).data.items.map((q: any) => q.id)).not.toContain(queueId);
    expect(new Set((await call(stranger, 'list_users')).data.items.map((u: any) => u.workspace_id))).toEqual(new Set([other.id]));
    expect((await call(stranger, 'get_issue', { key: issueKey })).problem).toMatchObject({ status: 404, code: 'not_found' });
    expect((await call(stranger, 'search_issues', { queue_ids: [queueId] })).problem).toMatchObject({ status: 403, code: 'forbidden' });
    expect((await call(stranger, 'update_user', { user_id: userId.admin, active: false })).problem).toMatchObject({ status: 404, code: 'not_found' });
    expect((await call(stranger, 'list_dashboards')).data.items.map((d: any) => d.id)).not.toContain(dashboardId);
  });

  test('when arguments are invalid, then the tool is refused as 422 and nothing is created', async () => {
    const before = await system.api('POST', '/api/v1/issues/search', { token: ws.admin.token, body: { queue_ids: [queueId] } });
    const refused = [
      await call(clients.admin!, 'create_issue', { queue_id: queueId, title: 'x', colour: 'red' }),
      await call(clients.admin!, 'create_issue', { queue_id: 0, title: '' }),
      await call(clients.admin!, 'create_issue', { title: 'no queue' }),
      await call(clients.admin!, 'add_worklog', { key: issueKey, minutes: 1441 }),
      await call(clients.admin!, 'search_issues', { limit: 2001 }),
      await call(clients.admin!, 'get_me', { anything: true }),
    ];
    expect(refused.map((r) => [r.problem?.status, r.problem?.code])).toEqual(refused.map(() => [422, 'validation_failed']));
    expect(refused.map((r) => r.problem!.errors.map((e: any) => e.path))).toEqual([['colour'], ['queue_id', 'title'], ['queue_id'], ['minutes'], ['limit'], ['anything']]);
    const after = await system.api('POST', '/api/v1/issues/search', { token: ws.admin.token, body: { queue_ids: [queueId] } });
    expect(after.body).toEqual(before.body);
  });

  test('when search_issues is asked for fewer issues than match, then it says how many matched and that it cut them', async () => {
    const all = await system.api('POST', '/api/v1/issues/search', { token: ws.admin.token, body: { queue_ids: [queueId] } });
    expect(all.body.length).toBeGreaterThan(1);
    expect(all.headers.get('x-truncated')).toBe('false');
    expect(all.headers.get('x-total-count')).toBe(String(all.body.length));
    const one = await call(clients.admin!, 'search_issues', { queue_ids: [queueId], limit: 1 });
    expect(one.data).toEqual({ items: [all.body[0]], total: all.body.length, truncated: true });
  });
});

describe('tokens and users change on the very next request', () => {
  test('when the token is revoked, then the next tool call is 401 and so is a raw request', async () => {
    const { token_id, token } = await system.admin('token', 'create', '--user', String(ws.member.id));
    const agent = await connectAgent(system.gatewayUrl, token);
    expect((await call(agent, 'get_me')).data).toMatchObject({ id: ws.member.id });
    await system.admin('token', 'revoke', '--token-id', String(token_id));
    await expect(agent.callTool({ name: 'get_me', arguments: {} })).rejects.toThrow(/401/);
    const raw = await fetch(`${system.gatewayUrl}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` }, body: '{}' });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('www-authenticate')).toMatch(/^Bearer /);
    await agent.close();
  });

  test('when an admin deactivates a user through a tool, then the user\'s next tool call is 401, and works again once reactivated', async () => {
    const user = await system.admin('user', 'add', '--workspace', String(ws.id), '--name', 'Temp');
    const admin = await connectAgent(system.gatewayUrl, ws.admin.token);
    const agent = await connectAgent(system.gatewayUrl, user.token);
    expect((await call(agent, 'get_me')).data).toMatchObject({ id: user.user_id, active: true });
    expect((await call(admin, 'update_user', { user_id: user.user_id, active: false })).data).toMatchObject({ active: false });
    await expect(agent.callTool({ name: 'get_me', arguments: {} })).rejects.toThrow(/401/);
    expect((await call(admin, 'update_user', { user_id: user.user_id, active: true })).data).toMatchObject({ active: true });
    expect((await call(agent, 'get_me')).data).toMatchObject({ id: user.user_id, active: true });
    await Promise.all([admin.close(), agent.close()]);
  });
});

describe('the gateway in front of /mcp', () => {
  const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

  test.each([
    ['no token', {}],
    ['a malformed token', { authorization: 'Bearer nope' }],
    ['an unknown token', { authorization: `Bearer trk_${'a'.repeat(40)}` }],
  ])('when /mcp is called with %s, then 401 with WWW-Authenticate: Bearer before anything MCP happens', async (_, headers) => {
    const response = await fetch(`${system.gatewayUrl}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body: initialize });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="tracker"/);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await response.json()).toMatchObject({ status: 401, code: 'unauthorized' });
  });

  test('when an agent initializes, then the answer carries a request id and the rate-limit headers, and no session id', async () => {
    const response = await fetch(`${system.gatewayUrl}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${ws.admin.token}`, 'x-request-id': 'mcp-test-1' }, body: initialize });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('mcp-test-1');
    expect(response.headers.get('ratelimit-limit')).not.toBeNull();
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'tracker' }, capabilities: { tools: {} } } });
  });

  test('when GET /mcp asks for a stream, then 405 (a stateless server offers none)', async () => {
    const response = await fetch(`${system.gatewayUrl}/mcp`, { headers: { accept: 'text/event-stream', authorization: `Bearer ${ws.admin.token}` } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  test('when the body is over 1 MiB, then 413 as for the REST API', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add_comment', arguments: { key: 'X-1', body: 'x'.repeat(1_100_000) } } });
    const response = await fetch(`${system.gatewayUrl}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${ws.admin.token}` }, body });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: 'payload_too_large' });
  });

  test('when a JSON-RPC batch is sent, then 400 with a JSON-RPC -32600 error and nothing in it runs; the same call alone works', async () => {
    const queue = await system.api('POST', '/api/v1/queues', { token: ws.admin.token, body: { key: `B${randomBytes(2).toString('hex')}`, name: 'Batches' } });
    const issue = await system.api('POST', '/api/v1/issues', { token: ws.admin.token, body: { queue_id: queue.body.id, title: 'Batched' } });
    const comment = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'add_comment', arguments: { key: issue.body.key, body: `Comment ${id}` } } });
    const send = (message: unknown) => fetch(`${system.gatewayUrl}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${ws.admin.token}` }, body: JSON.stringify(message) });
    const refusal = { jsonrpc: '2.0', error: { code: -32600, message: expect.stringContaining('batches are not supported') }, id: null };
    const batches = [
      Array.from({ length: 20 }, (_, i) => comment(i + 1)),
      Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/list' })),
      [],
    ];
    for (const batch of batches) {
      const response = await send(batch);
      const text = await response.text();
      expect([batch.length, response.status, JSON.parse(text)]).toEqual([batch.length, 400, refusal]);
      expect(text.length).toBeLessThan(200);
    }
    expect((await system.api('GET', `/api/v1/issues/${issue.body.key}`, { token: ws.admin.token })).body.comments_total).toBe(0);
    const alone = await send(comment(1));
    expect(alone.status).toBe(200);
    expect(await alone.json()).toMatchObject({ jsonrpc: '2.0', id: 1, result: { structuredContent: { body: 'Comment 1' } } });
    expect((await system.api('GET', `/api/v1/issues/${issue.body.key}`, { token: ws.admin.token })).body.comments_total).toBe(1);
  });

  test('when a token is past its rate limit, then /mcp answers 429 like /api/v1', async () => {
    const gateway = await system.startGateway({ RATE_LIMIT_PER_MINUTE: '2' });
    const { token } = await system.admin('token', 'create', '--user', String(ws.admin.id));
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${gateway.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` }, body: initialize });
      statuses.push(response.status);
      if (response.status === 429) expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    }
    expect(statuses).toEqual([200, 200, 429]);
    const rest = await fetch(`${gateway.url}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(rest.status).toBe(429);
    await gateway.stop('SIGTERM');
  });

  test('when the agent service is down, then /mcp answers 503 and the REST API keeps working', async () => {
    // Every replica: the service is down, not one pod of it.
    await Promise.all(system.instances('agent').map((agent) => agent.stop('SIGKILL')));
    const response = await fetch(`${system.gatewayUrl}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${ws.admin.token}` }, body: initialize });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await response.json()).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect((await system.api('GET', '/api/v1/me', { token: ws.admin.token })).status).toBe(200);
  });
});
