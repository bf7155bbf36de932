import { seedWorkspace, startSystem, type System } from '@tracker/system-tests-support';

let system: System;
let acme: Awaited<ReturnType<typeof seedWorkspace>>;
let globex: Awaited<ReturnType<typeof seedWorkspace>>;
beforeAll(async () => {
  system = await startSystem();
  [acme, globex] = await Promise.all([seedWorkspace(system, 'Acme'), seedWorkspace(system, 'Globex')]);
}, 60_000);
afterAll(() => system?.stop());

describe('users through the gateway', () => {
  test('when a member lists users, then exactly their workspace is returned', async () => {
    const res = await system.api('GET', '/api/v1/users', { token: acme.member.token });
    expect(res.status).toBe(200);
    expect(res.body.map((u: { id: number }) => u.id).sort()).toEqual([acme.admin.id, acme.member.id].sort());
    expect(res.body.every((u: { workspace_id: number }) => u.workspace_id === acme.id)).toBe(true);
    expect(JSON.stringify(res.body)).not.toMatch(/hash|trk_/);
  });

  test("when an admin patches another workspace's user, then 404 exactly like an unknown id, and nothing changes", async () => {
    const foreign = await system.api('PATCH', `/api/v1/users/${globex.member.id}`, { token: acme.admin.token, body: { name: 'Mallory' } });
    const unknown = await system.api('PATCH', '/api/v1/users/987654', { token: acme.admin.token, body: { name: 'Mallory' } });
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(foreign.body).toEqual(unknown.body);
    expect([...foreign.headers.keys()].filter((h) => h !== 'x-request-id' && h !== 'date').sort()).toEqual(
      [...unknown.headers.keys()].filter((h) => h !== 'x-request-id' && h !== 'date').sort(),
    );
    const theirs = await system.api('GET', '/api/v1/users', { token: globex.admin.token });
    expect(theirs.body.find((u: { id: number }) => u.id === globex.member.id).name).toBe('Bob');
  });

  test('when a member patches a user, then 403', async () => {
    const res = await system.api('PATCH', `/api/v1/users/${acme.admin.id}`, { token: acme.member.token, body: { role: 'member' } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('forbidden');
  });

  test('when the body has an unknown field or an out-of-range value, then 422 listing each path', async () => {
    const res = await system.api('PATCH', `/api/v1/users/${acme.member.id}`, {
      token: acme.admin.token,
      body: { name: 'x'.repeat(101), role: 'root', workspace_id: globex.id },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['name', 'role', 'workspace_id']);
  });

  test('when the JSON is malformed, then 422 from the service behind the gateway', async () => {
    const res = await system.api('PATCH', `/api/v1/users/${acme.member.id}`, {
      token: acme.admin.token,
      raw: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation_failed');
  });

  test('when the last active admin is demoted, then 409 last_active_admin', async () => {
    const res = await system.api('PATCH', `/api/v1/users/${globex.admin.id}`, { token: globex.admin.token, body: { role: 'member' } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('last_active_admin');
  });

  test('when two admins demote each other concurrently through the gateway, then one 200 and one 409', async () => {
    const ws = await seedWorkspace(system);
    const second = await system.admin('user', 'add', '--workspace', String(ws.id), '--name', 'Cy', '--role', 'admin');
    // Both principals cached first: the race under test is the two PATCHes in access, not two token lookups
    // (a token first looked up after the other change committed is already a member's: 403, rightly).
    await Promise.all([ws.admin.token, second.token].map((token) => system.api('GET', '/api/v1/me', { token })));
    const [a, b] = await Promise.all([
      system.api('PATCH', `/api/v1/users/${second.user_id}`, { token: ws.admin.token, body: { role: 'member' } }),
      system.api('PATCH', `/api/v1/users/${ws.admin.id}`, { token: second.token, body: { role: 'member' } }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const users = await system.api('GET', '/api/v1/users', { token: ws.member.token });
    expect(users.body.filter((u: { role: string; active: boolean }) => u.role === 'admin' && u.active)).toHaveLength(1);
  });
});
