import { issueTicket } from '@tracker/kit';
import { devSigningKey } from '@tracker/signing';
import { seedWorkspace, startSystem, type System } from '@tracker/system-tests-support';

let system: System;
beforeAll(async () => {
  system = await startSystem();
}, 60_000);
afterAll(() => system?.stop());

const expectUnauthorized = (res: { status: number; body: any; headers: Headers }) => {
  expect(res.status).toBe(401);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  expect(res.body).toMatchObject({ status: 401, code: 'unauthorized' });
};

describe('authentication at the gateway', () => {
  test('when a token made by the operator command reads /me, then 200 with its owner', async () => {
    const ws = await seedWorkspace(system, 'Acme');
    const res = await system.api('GET', '/api/v1/me', { token: ws.admin.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: ws.admin.id, role: 'admin', active: true, workspace: { id: ws.id, name: 'Acme' } });
    expect(res.headers.get('x-request-id')).toMatch(/\S+/);
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  test.each([
    ['no Authorization header', {}],
    ['a Basic credential', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['Bearer without a token', { authorization: 'Bearer' }],
    ['a malformed token', { authorization: 'Bearer not-a-token' }],
    ['a token with the wrong prefix', { authorization: `Bearer tok_${'A'.repeat(40)}` }],
    ['a well-formed unknown token', { authorization: `Bearer trk_${'Z'.repeat(40)}` }],
  ])('when the request carries %s, then 401 with WWW-Authenticate: Bearer', async (_label, headers) => {
    expectUnauthorized(await system.api('GET', '/api/v1/me', { headers }));
  });

  test('when the token is sent in the query string instead of the header, then 401', async () => {
    const ws = await seedWorkspace(system);
    expectUnauthorized(await system.api('GET', `/api/v1/me?access_token=${ws.admin.token}`));
    expectUnauthorized(await system.api('GET', `/api/v1/me?token=${ws.admin.token}`));
  });

  test('when a token is revoked, then the very next request is 401; other tokens of the owner still work', async () => {
    const ws = await seedWorkspace(system);
    const extra = await system.admin('token', 'create', '--user', String(ws.member.id));
    expect((await system.api('GET', '/api/v1/me', { token: extra.token })).status).toBe(200);
    const revoked = await system.admin('token', 'revoke', '--token-id', String(extra.token_id));
    expect(revoked).toEqual({ token_id: extra.token_id, revoked: true });
    expectUnauthorized(await system.api('GET', '/api/v1/me', { token: extra.token }));
    expect((await system.api('GET', '/api/v1/me', { token: ws.member.token })).status).toBe(200);
  });

  test('when a user is deactivated, then their token fails on the next request, and reactivation restores it', async () => {
    const ws = await seedWorkspace(system);
    expect((await system.api('GET', '/api/v1/me', { token: ws.member.token })).status).toBe(200);
    const off = await system.api('PATCH', `/api/v1/users/${ws.member.id}`, { token: ws.admin.token, body: { active: false } });
    expect(off.status).toBe(200);
    expectUnauthorized(await system.api('GET', '/api/v1/me', { token: ws.member.token }));
    const on = await system.api('PATCH', `/api/v1/users/${ws.member.id}`, { token: ws.admin.token, body: { active: true } });
    expect(on.status).toBe(200);
    expect((await system.api('GET', '/api/v1/me', { token: ws.member.token })).status).toBe(200);
  });

  test('when an admin is demoted, then their next request is refused admin rights', async () => {
    const ws = await seedWorkspace(system);
    const second = await system.admin('user', 'add', '--workspace', String(ws.id), '--name', 'Cy', '--role', 'admin');
    expect((await system.api('PATCH', `/api/v1/users/${ws.member.id}`, { token: second.token, body: { name: 'Bo' } })).status).toBe(200);
    await system.api('PATCH', `/api/v1/users/${second.user_id}`, { token: ws.admin.token, body: { role: 'member' } });
    const res = await system.api('PATCH', `/api/v1/users/${ws.member.id}`, { token: second.token, body: { name: 'Bob' } });
    expect(res.status).toBe(403);
  });

  test('when a client sends its own principal header, then it is ignored: the token decides who calls', async () => {
    const ws = await seedWorkspace(system);
    const other = await seedWorkspace(system);
    const forged = issueTicket(devSigningKey('gateway'), { audience: 'access', method: 'GET', path: '/api/v1/me', user: { kind: 'user', userId: other.admin.id, workspaceId: other.id, workspaceRole: 'admin', tokenId: 1 } });
    const res = await system.api('GET', '/api/v1/me', { token: ws.member.token, headers: { 'x-tracker-principal': forged } });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(ws.member.id);
  });
});

describe('services reached directly', () => {
  test('when a service port is called without a signed principal, or with a forged one, then 401', async () => {
    const ws = await seedWorkspace(system);
    const user = { kind: 'user', userId: ws.admin.id, workspaceId: ws.id, workspaceRole: 'admin', tokenId: 1 } as const;
    for (const [name, service] of [['access', system.services.access], ['issues', system.services.issues], ['statistics', system.services.statistics]] as const) {
      // Signed with the development key, which this system does not trust.
      const forged = issueTicket(devSigningKey('gateway'), { audience: name, method: 'GET', path: '/api/v1/me', user });
      const attempts: Record<string, string>[] = [{}, { 'x-tracker-principal': forged }, { authorization: `Bearer ${ws.admin.token}` }];
      for (const headers of attempts) {
        const res = await system.api('GET', '/api/v1/me', { baseUrl: service.url, headers });
        expect(res.status).toBe(401);
      }
    }
    const resolve = await system.api('POST', '/internal/auth/resolve', { baseUrl: system.services.access.url, body: { token_hash: '0'.repeat(64) } });
    expect(resolve.status).toBe(401);
  });

  test('when a ticket made with the gateway\'s key for this very request is sent directly, then the service accepts it (the key is the only way in)', async () => {
    const ws = await seedWorkspace(system);
    const user = { kind: 'user', userId: ws.admin.id, workspaceId: ws.id, workspaceRole: 'admin', tokenId: 1 } as const;
    const valid = issueTicket(system.keys.gateway, { audience: 'access', method: 'GET', path: '/api/v1/me', user });
    const res = await system.api('GET', '/api/v1/me', { baseUrl: system.services.access.url, headers: { 'x-tracker-principal': valid } });
    expect(res.status).toBe(200);
  });

  test('internal endpoints are not reachable through the gateway', async () => {
    const ws = await seedWorkspace(system);
    const res = await system.api('POST', '/internal/auth/resolve', { token: ws.admin.token, body: { token_hash: '0'.repeat(64) } });
    expect(res.status).toBe(404);
  });
});

describe('with Redis unreachable', () => {
  test('authentication and revocation stay correct, and the cache is used again once Redis returns', async () => {
    const ws = await seedWorkspace(system);
    expect((await system.api('GET', '/api/v1/me', { token: ws.member.token })).status).toBe(200);
    await Promise.all([system.redisRelay.cut(), system.accessRedisRelay.cut()]);
    try {
      for (let i = 0; i < 3; i++) {
        const res = await system.api('GET', '/api/v1/me', { token: ws.member.token });
        expect(res.status).toBe(200);
        expect(res.ms).toBeLessThan(3000);
      }
      expectUnauthorized(await system.api('GET', '/api/v1/me', { token: `trk_${'Q'.repeat(40)}` }));
      const off = await system.api('PATCH', `/api/v1/users/${ws.member.id}`, { token: ws.admin.token, body: { active: false } });
      expect(off.status).toBe(200);
      expectUnauthorized(await system.api('GET', '/api/v1/me', { token: ws.member.token }));
    } finally {
      await Promise.all([system.redisRelay.restore(), system.accessRedisRelay.restore()]);
    }
    // Redis is back; the member was cached before the outage and deactivated during it:
    // the recorded cache delete must have been carried out before the cache is trusted again.
    const deadline = Date.now() + 5000;
    let last = 0;
    while (Date.now() < deadline) {
      last = (await system.api('GET', '/api/v1/me', { token: ws.member.token })).status;
      expect(last).toBe(401);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect((await system.api('GET', '/api/v1/me', { token: ws.admin.token })).status).toBe(200);
  });

  test('when only the access service loses Redis, then a deactivation still holds for the next request at the gateway', async () => {
    const ws = await seedWorkspace(system);
    // Cached and trusted before the partition.
    expect((await system.api('GET', '/api/v1/me', { token: ws.member.token })).status).toBe(200);
    await system.accessRedisRelay.cut();
    try {
      const off = await system.api('PATCH', `/api/v1/users/${ws.member.id}`, { token: ws.admin.token, body: { active: false } });
      expect(off.status).toBe(200);
      // The gateway still reaches Redis and its stale entry, but must not trust it.
      expectUnauthorized(await system.api('GET', '/api/v1/me', { token: ws.member.token }));
      expect((await system.api('GET', '/api/v1/me', { token: ws.admin.token })).status).toBe(200);
    } finally {
      await system.accessRedisRelay.restore();
    }
    for (let i = 0; i < 8; i++) {
      expectUnauthorized(await system.api('GET', '/api/v1/me', { token: ws.member.token }));
      await new Promise((r) => setTimeout(r, 250));
    }
  });
});
