/**
 * "A change holds for the very next request" at the moment a write is decided: a request
 * whose headers arrived before a revoke, a deactivation or a demotion, and whose body
 * arrived after that change's 200, is judged by the rights after the change.
 */
import http from 'node:http';
import { seedWorkspace, startSystem, type System } from '@tracker/system-tests-support';

let system: System;
beforeAll(async () => {
  system = await startSystem();
}, 60_000);
afterAll(() => system?.stop());

/**
 * Sends the request line and headers at once, then waits for `meanwhile` (the change,
 * answered 200) before sending the body.
 */
async function bodyAfter(method: string, path: string, token: string, body: unknown, meanwhile: () => Promise<void>) {
  const text = JSON.stringify(body);
  const url = new URL(path, system.gatewayUrl);
  const req = http.request(url, {
    method,
    agent: false,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
  });
  const answer = new Promise<{ status: number; body: any }>((resolve, reject) => {
    req.on('response', (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (data += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: data ? JSON.parse(data) : undefined }));
    });
    req.on('error', reject);
  });
  req.flushHeaders();
  // Long enough for the gateway to have taken the headers (and, before the fix, to have authenticated).
  await new Promise((r) => setTimeout(r, 300));
  await meanwhile();
  req.end(text);
  return answer;
}

describe('a write decided with the rights at the time its body arrived', () => {
  test('when the token is revoked between the headers and the body, then the PATCH is 401 and changes nothing', async () => {
    const ws = await seedWorkspace(system);
    const queue = (await system.api('POST', '/api/v1/queues', { token: ws.admin.token, body: { key: 'REV', name: 'Revoke' } })).body;
    const extra = await system.admin('token', 'create', '--user', String(ws.admin.id));
    const issue = (await system.api('POST', '/api/v1/issues', { token: extra.token, body: { queue_id: queue.id, title: 'Before' } })).body;

    const res = await bodyAfter('PATCH', `/api/v1/issues/${issue.key}`, extra.token, { title: 'After the revoke', version: 1 }, async () => {
      expect(await system.admin('token', 'revoke', '--token-id', String(extra.token_id))).toEqual({ token_id: extra.token_id, revoked: true });
    });

    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'unauthorized' });
    const now = await system.api('GET', `/api/v1/issues/${issue.key}`, { token: ws.admin.token });
    expect(now.body).toMatchObject({ title: 'Before', version: 1 });
  });

  test('when the user is deactivated between the headers and the body, then the comment is 401 and not written', async () => {
    const ws = await seedWorkspace(system);
    const queue = (await system.api('POST', '/api/v1/queues', { token: ws.admin.token, body: { key: 'DEA', name: 'Deactivate' } })).body;
    await system.api('PUT', `/api/v1/queues/${queue.id}/permissions/${ws.member.id}`, { token: ws.admin.token, body: { role: 'read-write' } });
    const issue = (await system.api('POST', '/api/v1/issues', { token: ws.admin.token, body: { queue_id: queue.id, title: 'Commented' } })).body;
    expect((await system.api('GET', '/api/v1/me', { token: ws.member.token })).status).toBe(200);

    const res = await bodyAfter('POST', `/api/v1/issues/${issue.key}/comments`, ws.member.token, { body: 'Written after my deactivation' }, async () => {
      const off = await system.api('PATCH', `/api/v1/users/${ws.member.id}`, { token: ws.admin.token, body: { active: false } });
      expect(off.status).toBe(200);
    });

    expect(res.status).toBe(401);
    const now = await system.api('GET', `/api/v1/issues/${issue.key}`, { token: ws.admin.token });
    expect(now.body.comments).toEqual([]);
  });

  test('when an admin is demoted between the headers and the body, then creating a queue is 403 and no queue is made', async () => {
    const ws = await seedWorkspace(system);
    const second = await system.admin('user', 'add', '--workspace', String(ws.id), '--name', 'Cleo', '--role', 'admin');
    expect((await system.api('GET', '/api/v1/queues', { token: second.token })).status).toBe(200);

    const res = await bodyAfter('POST', '/api/v1/queues', second.token, { key: 'DEMOTED', name: 'Made after the demotion' }, async () => {
      const demoted = await system.api('PATCH', `/api/v1/users/${second.user_id}`, { token: ws.admin.token, body: { role: 'member' } });
      expect(demoted.status).toBe(200);
    });

    expect(res.status).toBe(403);
    const queues = await system.api('GET', '/api/v1/queues', { token: ws.admin.token });
    expect(queues.body.map((q: { key: string }) => q.key)).not.toContain('DEMOTED');
  });
});
