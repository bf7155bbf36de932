import http from 'node:http';
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { connectAgent, seedWorkspace, startSystem, type AgentClient, type System } from '@tracker/system-tests-support';
import { call } from './agent-walk';

/**
 * Safe retries and conditional requests through the gateway: a POST whose answer is
 * lost on the way back is retried with its Idempotency-Key and written once; an issue's
 * ETag gives 304 on an unchanged read and 412 on a change from a stale read.
 */
let system: System;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;
let queueId: number;
let issueKey: string;
let lossy: LossyRelay;

beforeAll(async () => {
  system = await startSystem();
  ws = await seedWorkspace(system, 'Retries');
  const queue = await system.api('POST', '/api/v1/queues', { token: ws.admin.token, body: { key: 'RTY', name: 'Retries' } });
  queueId = queue.body.id;
  issueKey = (await system.api('POST', '/api/v1/issues', { token: ws.admin.token, body: { queue_id: queueId, title: 'Retry here' } })).body.key;
  lossy = await startLossyRelay(new URL(system.gatewayUrl));
});
afterAll(async () => {
  await lossy?.close();
  await system?.stop();
});

/**
 * A TCP relay to the gateway that passes the request through whole and, as soon as the
 * answer starts to come back, drops the connection without passing on a byte: the write
 * happened, the client never learns of it (a timeout, a reset connection, a lost reply).
 */
interface LossyRelay {
  url: string;
  close: () => Promise<void>;
}

async function startLossyRelay(gateway: URL): Promise<LossyRelay> {
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: gateway.hostname, port: Number(gateway.port) });
    client.pipe(upstream);
    upstream.once('data', () => {
      upstream.destroy();
      client.destroy();
    });
    for (const socket of [client, upstream]) socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A POST through the lossy relay: resolves with the error the client sees (the answer never arrives). */
function postAndLoseTheAnswer(path: string, body: unknown, headers: Record<string, string>): Promise<Error> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(`${lossy.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.admin.token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers },
    });
    request.on('response', () => reject(new Error('an answer arrived through the lossy relay')));
    request.on('error', resolve);
    request.end(payload);
  });
}

const issue = async (key: string) => (await system.api('GET', `/api/v1/issues/${key}`, { token: ws.admin.token })).body;

describe('a POST retried after its answer was lost', () => {
  test('when a comment is retried with the same Idempotency-Key, then it is written once and the retry gets the first answer', async () => {
    const key = randomUUID();
    const before = (await issue(issueKey)).comments_total;
    const lost = await postAndLoseTheAnswer(`/api/v1/issues/${issueKey}/comments`, { body: 'Deployed to production' }, { 'Idempotency-Key': key });
    expect(lost.message).toMatch(/socket hang up|ECONNRESET/);
    const retried = await system.api('POST', `/api/v1/issues/${issueKey}/comments`, {
      token: ws.admin.token,
      body: { body: 'Deployed to production' },
      headers: { 'Idempotency-Key': key },
    });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.headers.get('content-type')).toBe('application/json');
    const after = await issue(issueKey);
    expect(after.comments_total).toBe(before + 1);
    expect(after.comments.at(-1)).toEqual(retried.body);
  });

  test('when an issue creation is retried with the same key, then one issue exists', async () => {
    const key = randomUUID();
    const title = `Created once ${key}`;
    await postAndLoseTheAnswer('/api/v1/issues', { queue_id: queueId, title }, { 'Idempotency-Key': key });
    const retried = await system.api('POST', '/api/v1/issues', { token: ws.admin.token, body: { queue_id: queueId, title }, headers: { 'Idempotency-Key': key } });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    const found = await system.api('POST', '/api/v1/issues/search', { token: ws.admin.token, body: { queue_ids: [queueId], search: key } });
    expect(found.body.map((i: { id: number }) => i.id)).toEqual([retried.body.id]);
    expect(found.headers.get('x-total-count')).toBe('1');
  });

  test('when the same retry is made without a key, then the comment is written twice (what the key prevents)', async () => {
    const before = (await issue(issueKey)).comments_total;
    await postAndLoseTheAnswer(`/api/v1/issues/${issueKey}/comments`, { body: 'No key' }, {});
    const retried = await system.api('POST', `/api/v1/issues/${issueKey}/comments`, { token: ws.admin.token, body: { body: 'No key' } });
    expect(retried.status).toBe(201);
    expect((await issue(issueKey)).comments_total).toBe(before + 2);
  });

  test('when a dashboard creation is retried with the same key, then one dashboard exists', async () => {
    const key = randomUUID();
    const name = `Board ${key}`;
    await postAndLoseTheAnswer('/api/v1/dashboards', { name, widgets: [] }, { 'Idempotency-Key': key });
    const retried = await system.api('POST', '/api/v1/dashboards', { token: ws.admin.token, body: { name, widgets: [] }, headers: { 'Idempotency-Key': key } });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    const listed = (await system.api('GET', '/api/v1/dashboards', { token: ws.admin.token })).body.filter((d: { name: string }) => d.name === name);
    expect(listed).toHaveLength(1);
  });

  test('when an agent repeats create_issue with the same idempotency_key, then one issue and the same result', async () => {
    const agent: AgentClient = await connectAgent(system.gatewayUrl, ws.admin.token);
    try {
      const key = randomUUID();
      const args = { queue_id: queueId, title: `Agent once ${key}`, idempotency_key: key };
      const [first, again] = [await call(agent, 'create_issue', args), await call(agent, 'create_issue', args)];
      expect(first.problem).toBeNull();
      expect(again.data).toEqual(first.data);
      const found = await system.api('POST', '/api/v1/issues/search', { token: ws.admin.token, body: { queue_ids: [queueId], search: key } });
      expect(found.body).toHaveLength(1);
      const reused = await call(agent, 'create_issue', { ...args, title: 'Another' });
      expect(reused.problem).toMatchObject({ status: 422, code: 'idempotency_key_reused' });
    } finally {
      await agent.close();
    }
  });
});

describe('conditional requests on an issue through the gateway', () => {
  test('when the issue is read again with If-None-Match, then 304; after a change, 200 with a new tag', async () => {
    const read = await system.api('GET', `/api/v1/issues/${issueKey}`, { token: ws.admin.token });
    const etag = read.headers.get('etag')!;
    expect(etag).toMatch(new RegExp(`^"${read.body.version}-[0-9a-f]{16}"$`));
    const unchanged = await system.api('GET', `/api/v1/issues/${issueKey}`, { token: ws.admin.token, headers: { 'If-None-Match': etag } });
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers.get('etag')).toBe(etag);
    const patched = await system.api('PATCH', `/api/v1/issues/${issueKey}`, { token: ws.admin.token, body: { priority: 'high' }, headers: { 'If-Match': etag } });
    expect(patched.status).toBe(200);
    expect(patched.headers.get('etag')).toMatch(new RegExp(`^"${read.body.version + 1}-`));
    const changed = await system.api('GET', `/api/v1/issues/${issueKey}`, { token: ws.admin.token, headers: { 'If-None-Match': etag } });
    expect(changed.status).toBe(200);
  });

  test('when a PATCH carries the tag of a stale read, then 412 precondition_failed with the current version and nothing changes', async () => {
    const stale = (await system.api('GET', `/api/v1/issues/${issueKey}`, { token: ws.admin.token })).headers.get('etag')!;
    const moved = await system.api('PATCH', `/api/v1/issues/${issueKey}`, { token: ws.admin.token, body: { title: 'Someone else' } });
    const refused = await system.api('PATCH', `/api/v1/issues/${issueKey}`, { token: ws.admin.token, body: { title: 'Mine' }, headers: { 'If-Match': stale } });
    expect(refused.status).toBe(412);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(refused.body).toMatchObject({ code: 'precondition_failed', status: 412, version: moved.body.version });
    expect((await issue(issueKey)).title).toBe('Someone else');
  });
});
