import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { UserPrincipal } from '@tracker/kit';
import {
  connect,
  fixtures,
  json,
  mcpHeaders,
  newCaller,
  post,
  problemIn,
  startAgent,
  startScriptedUpstream,
  vouchedFor,
  type ScriptedUpstream,
  type McpClient,
  type RunningAgent,
} from './harness';

/**
 * What one user can make the agent do at once: one JSON-RPC message per request (no
 * batches), and a bounded number of tool calls running (TOOL_CALLS_IN_FLIGHT_PER_USER, 8).
 */
type Service = 'access' | 'issues' | 'statistics';

let upstreams: Record<Service, ScriptedUpstream>;
let agent: RunningAgent;
const clients: McpClient[] = [];

beforeAll(async () => {
  upstreams = { access: await startScriptedUpstream(), issues: await startScriptedUpstream(), statistics: await startScriptedUpstream() };
  agent = await startAgent({ ACCESS_URL: upstreams.access.url, ISSUES_URL: upstreams.issues.url, STATISTICS_URL: upstreams.statistics.url });
});
afterAll(async () => {
  await agent.close();
  await Promise.all(Object.values(upstreams).map((upstream) => upstream.close()));
});
beforeEach(() => Object.values(upstreams).forEach((upstream) => upstream.reset()));
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function clientFor(caller: UserPrincipal, url = agent.url): Promise<McpClient> {
  const client = await connect(url, caller);
  clients.push(client);
  return client;
}

const callTool = async (client: McpClient, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
const receivedCount = () => Object.values(upstreams).reduce((sum, upstream) => sum + upstream.received.length, 0);
/** Every service answers a success at once: a call that reached one would be seen answered. */
const answerEverything = () => {
  upstreams.access.answer(json(200, fixtures.me()));
  upstreams.issues.answer(json(201, fixtures.comment()));
  upstreams.statistics.answer(json(200, fixtures.statistics()));
};

const getMe = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_me', arguments: {} } });
const addComment = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'add_comment', arguments: { key: 'WEB-12', body: `Comment ${id}` } } });
const listTools = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
const times = <T>(count: number, message: (id: number) => T) => Array.from({ length: count }, (_, i) => message(i + 1));

describe('JSON-RPC batches', () => {
  const refusal = {
    jsonrpc: '2.0',
    error: { code: -32600, message: 'Invalid Request: JSON-RPC batches are not supported; send one message per request.' },
    id: null,
  };

  test.each([
    ['100 tools/call of a read (get_me)', times(100, getMe)],
    ['100 tools/call of a write (add_comment)', times(100, addComment)],
    ['100 tools/list', times(100, listTools)],
    ['a single tools/call in an array', [getMe(1)]],
    ['an initialize in an array', [{ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }]],
    ['notifications only', [{ jsonrpc: '2.0', method: 'notifications/initialized' }]],
    ['an empty array', []],
  ])('when %s is posted as one request, then 400 with a JSON-RPC -32600 error of under 200 bytes, and no service is called', async (_case, batch) => {
    answerEverything();
    const response = await post(agent.url, batch, mcpHeaders(newCaller(), {}, { message: batch }));
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.body).toEqual(refusal);
    expect(Buffer.byteLength(response.text)).toBeLessThan(200);
    expect(receivedCount()).toBe(0);
  });

  test('when the same tools/call is posted alone, then it is answered and reaches its service once', async () => {
    answerEverything();
    const message = getMe(1);
    const response = await post(agent.url, message, mcpHeaders(newCaller(), {}, { message }));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: JSON.stringify(fixtures.me()) }], structuredContent: fixtures.me() } });
    expect(upstreams.access.received).toHaveLength(1);
    expect(receivedCount()).toBe(1);
  });

  test('when the SDK client lists tools and calls one, then both work (it sends one message per request)', async () => {
    answerEverything();
    const client = await clientFor(newCaller());
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect(await callTool(client, 'get_me', {})).toEqual({ content: [{ type: 'text', text: JSON.stringify(fixtures.me()) }], structuredContent: fixtures.me() });
  });
});

describe('tool calls in flight per user (TOOL_CALLS_IN_FLIGHT_PER_USER, 8 by default)', () => {
  // An agent of its own: hanging calls end after 1.5 s, and its counter holds this test's calls alone.
  let bounded: RunningAgent;
  beforeAll(async () => {
    bounded = await startAgent({ ACCESS_URL: upstreams.access.url, ISSUES_URL: upstreams.issues.url, STATISTICS_URL: upstreams.statistics.url, UPSTREAM_TIMEOUT_MS: '1500' });
  });
  afterAll(() => bounded.close());

  const until = async (done: () => boolean) => {
    const deadline = Date.now() + 3000;
    while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(done()).toBe(true);
  };

  test('when a user has 8 calls running, then their next calls are refused at once as 429 rate_limited (to retry), while another user\'s 8 calls go through', async () => {
    const [ada, bob] = [newCaller(), newCaller()];
    const [adaClient, bobClient] = [await clientFor(ada, bounded.url), await clientFor(bob, bounded.url)];
    upstreams.issues.answer('hang');
    upstreams.access.answer(json(200, fixtures.me()));

    const adaRunning = times(8, (n) => callTool(adaClient, 'get_issue', { key: `WEB-${n}` }));
    await until(() => upstreams.issues.received.length === 8);

    // Over the bound: refused without waiting, whatever the tool, and no service hears of it.
    const started = Date.now();
    const refused = [await callTool(adaClient, 'get_issue', { key: 'WEB-9' }), await callTool(adaClient, 'get_me', {})];
    expect(Date.now() - started).toBeLessThan(500);
    for (const result of refused) {
      expect(result).toEqual({ isError: true, content: [{ type: 'text', text: expect.any(String) }] });
      expect(problemIn(result)).toEqual({
        type: 'https://tracker.dev/problems/rate-limited',
        title: expect.any(String),
        status: 429,
        detail: 'Too many tool calls in progress for this user: at most 8 at once. Retry once one of them has answered.',
        code: 'rate_limited',
      });
    }
    expect(upstreams.issues.received).toHaveLength(8);
    expect(upstreams.access.received).toHaveLength(0);

    // Another user's calls are theirs to count: all 8 reach the service, as that user.
    const bobRunning = times(8, (n) => callTool(bobClient, 'get_issue', { key: `WEB-${n}` }));
    await until(() => upstreams.issues.received.length === 16);
    expect(upstreams.issues.received.map((request) => vouchedFor(request, 'issues'))).toEqual([...times(8, () => ada), ...times(8, () => bob)]);

    // Each call frees its slot when its service call ends (here, at the 1.5 s timeout).
    const ended = await Promise.all([...adaRunning, ...bobRunning]);
    expect(ended.map((result) => problemIn(result).status)).toEqual(times(16, () => 503));
    expect(await callTool(adaClient, 'get_me', {})).toEqual({ content: [{ type: 'text', text: JSON.stringify(fixtures.me()) }], structuredContent: fixtures.me() });

    const metric = await bounded.service.metrics.registry.getSingleMetric('tracker_agent_tool_calls_total')!.get();
    const counts = metric.values.map(({ labels, value }) => ({ tool: labels.tool, status: labels.status, value }));
    expect(counts.sort((a, b) => `${a.tool} ${a.status}`.localeCompare(`${b.tool} ${b.status}`))).toEqual([
      { tool: 'get_issue', status: '429', value: 1 },
      { tool: 'get_issue', status: '503', value: 16 },
      { tool: 'get_me', status: '200', value: 1 },
      { tool: 'get_me', status: '429', value: 1 },
    ]);
  });
});
