import { startAccess, type AccessHarness } from './harness';

let access: AccessHarness;
beforeAll(async () => {
  access = await startAccess();
});
afterAll(() => access.close());

const problemShape = (status: number, code: string) =>
  expect.objectContaining({ status, code, title: expect.any(String), detail: expect.any(String), type: expect.any(String) });

describe('GET /api/v1/me', () => {
  test('when a member asks, then their user and workspace come back', async () => {
    const ws = await access.workspace('Acme');
    const member = await access.member(ws.id);
    const res = await access.call('GET', '/api/v1/me', { as: member.principal });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: member.id,
      workspace_id: ws.id,
      name: expect.stringMatching(/^user-/),
      role: 'member',
      active: true,
      email: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      workspace: { id: ws.id, name: 'Acme' },
    });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});

describe('GET /api/v1/users', () => {
  test('when a member lists users, then only their own workspace shows, deactivated users included', async () => {
    const ws = await access.workspace();
    const other = await access.workspace();
    const member = await access.member(ws.id);
    const gone = await access.member(ws.id);
    await access.call('PATCH', `/api/v1/users/${gone.id}`, { as: ws.admin.principal, body: { active: false } });
    const res = await access.call('GET', '/api/v1/users', { as: member.principal });
    expect(res.status).toBe(200);
    expect(res.body.map((u: { id: number }) => u.id)).toEqual([ws.admin.id, member.id, gone.id]);
    expect(res.body.find((u: { id: number }) => u.id === gone.id).active).toBe(false);
    expect(res.body.some((u: { workspace_id: number }) => u.workspace_id === other.id)).toBe(false);
  });
});

describe('PATCH /api/v1/users/{user_id}', () => {
  test('when an admin renames, promotes and deactivates a member, then 200 with the new state', async () => {
    const ws = await access.workspace();
    const member = await access.member(ws.id);
    const res = await access.call('PATCH', `/api/v1/users/${member.id}`, {
      as: ws.admin.principal,
      body: { name: 'Grace', role: 'admin', active: false },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: member.id, name: 'Grace', role: 'admin', active: false });
    const list = await access.call('GET', '/api/v1/users', { as: ws.admin.principal });
    expect(list.body.find((u: { id: number }) => u.id === member.id)).toMatchObject({ name: 'Grace', role: 'admin', active: false });
  });

  test('when the body is empty, then 200 and nothing changes', async () => {
    const ws = await access.workspace();
    const member = await access.member(ws.id);
    const before = await access.call('GET', '/api/v1/users', { as: ws.admin.principal });
    const res = await access.call('PATCH', `/api/v1/users/${member.id}`, { as: ws.admin.principal, body: {} });
    expect(res.status).toBe(200);
    const after = await access.call('GET', '/api/v1/users', { as: ws.admin.principal });
    expect(after.body).toEqual(before.body);
  });

  test('when a member patches anyone, then 403 whatever the body', async () => {
    const ws = await access.workspace();
    const member = await access.member(ws.id);
    for (const body of [{ name: 'x' }, { bogus: 1 }]) {
      const res = await access.call('PATCH', `/api/v1/users/${ws.admin.id}`, { as: member.principal, body });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(problemShape(403, 'forbidden'));
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });

  test("when an admin patches another workspace's user or an unknown id, then 404 and nothing changes", async () => {
    const ws = await access.workspace();
    const other = await access.workspace();
    const foreign = await access.member(other.id);
    for (const id of [foreign.id, 999999]) {
      const res = await access.call('PATCH', `/api/v1/users/${id}`, { as: ws.admin.principal, body: { name: 'Hijacked' } });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(problemShape(404, 'not_found'));
    }
    const users = await access.call('GET', '/api/v1/users', { as: other.admin.principal });
    expect(users.body.find((u: { id: number }) => u.id === foreign.id).name).not.toBe('Hijacked');
  });

  test.each([
    ['an unknown field', { name: 'A', nickname: 'x' }, 'nickname'],
    ['an empty name', { name: '' }, 'name'],
    ['a name of 101 characters', { name: 'x'.repeat(101) }, 'name'],
    ['a null name', { name: null }, 'name'],
    ['an unknown role', { role: 'owner' }, 'role'],
    ['a non-boolean active', { active: 'yes' }, 'active'],
  ])('when the body has %s, then 422 naming the path and nothing changes', async (_label, body, path) => {
    const ws = await access.workspace();
    const member = await access.member(ws.id);
    const res = await access.call('PATCH', `/api/v1/users/${member.id}`, { as: ws.admin.principal, body });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(problemShape(422, 'validation_failed'));
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    const me = await access.call('GET', '/api/v1/me', { as: member.principal });
    expect(me.body).toMatchObject({ role: 'member', active: true, name: expect.stringMatching(/^user-/) });
  });

  test('when the body has several bad fields, then every failing path is listed', async () => {
    const ws = await access.workspace();
    const res = await access.call('PATCH', `/api/v1/users/${ws.admin.id}`, { as: ws.admin.principal, body: { name: '', role: 'x', extra: 1 } });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['extra', 'name', 'role']);
  });

  test.each(['abc', '0', '-1', '1.5', '99999999999999999999'])('when the user id is %s, then 422', async (id) => {
    const ws = await access.workspace();
    const res = await access.call('PATCH', `/api/v1/users/${id}`, { as: ws.admin.principal, body: { name: 'A' } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ path: 'user_id' })]);
  });

  test('when the JSON is malformed or the body is not JSON, then 422', async () => {
    const ws = await access.workspace();
    const malformed = await access.call('PATCH', `/api/v1/users/${ws.admin.id}`, {
      as: ws.admin.principal,
      raw: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(422);
    const wrongType = await access.call('PATCH', `/api/v1/users/${ws.admin.id}`, {
      as: ws.admin.principal,
      raw: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(wrongType.status).toBe(422);
    const array = await access.call('PATCH', `/api/v1/users/${ws.admin.id}`, { as: ws.admin.principal, body: [] });
    expect(array.status).toBe(422);
  });

  test('when the body is over 1 MiB, then 413', async () => {
    const ws = await access.workspace();
    const res = await access.call('PATCH', `/api/v1/users/${ws.admin.id}`, {
      as: ws.admin.principal,
      body: { name: 'x'.repeat(1024 * 1024 + 10) },
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual(problemShape(413, 'payload_too_large'));
  });

  test('when the last active admin demotes or deactivates themself, then 409 last_active_admin', async () => {
    const ws = await access.workspace();
    for (const body of [{ role: 'member' }, { active: false }]) {
      const res = await access.call('PATCH', `/api/v1/users/${ws.admin.id}`, { as: ws.admin.principal, body });
      expect(res.status).toBe(409);
      expect(res.body).toEqual(problemShape(409, 'last_active_admin'));
    }
    const me = await access.call('GET', '/api/v1/me', { as: ws.admin.principal });
    expect(me.body).toMatchObject({ role: 'admin', active: true });
  });

  test('when a deactivated admin exists, then the one active admin is still protected', async () => {
    const ws = await access.workspace();
    const second = await access.member(ws.id, 'admin');
    expect((await access.call('PATCH', `/api/v1/users/${second.id}`, { as: ws.admin.principal, body: { active: false } })).status).toBe(200);
    const res = await access.call('PATCH', `/api/v1/users/${ws.admin.id}`, { as: ws.admin.principal, body: { role: 'member' } });
    expect(res.status).toBe(409);
  });

  test('when two admins demote each other at the same time, then exactly one succeeds', async () => {
    for (let round = 0; round < 5; round++) {
      const ws = await access.workspace();
      const second = await access.member(ws.id, 'admin');
      const [a, b] = await Promise.all([
        access.call('PATCH', `/api/v1/users/${second.id}`, { as: ws.admin.principal, body: { role: 'member' } }),
        access.call('PATCH', `/api/v1/users/${ws.admin.id}`, { as: second.principal, body: { role: 'member' } }),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 409]);
      const admins = await access.schema.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${access.schema.schema}".users WHERE workspace_id = $1 AND role = 'admin' AND active`,
        [ws.id],
      );
      expect(admins[0]!.n).toBe(1);
    }
  });

  test('when ten admins all deactivate each other at once, then one active admin remains', async () => {
    const ws = await access.workspace();
    const admins = [ws.admin, ...(await Promise.all(Array.from({ length: 9 }, () => access.member(ws.id, 'admin'))))];
    const results = await Promise.all(
      admins.map((actor, i) => {
        const target = admins[(i + 1) % admins.length]!;
        return access.call('PATCH', `/api/v1/users/${target.id}`, { as: actor.principal, body: { active: false } });
      }),
    );
    const active = await access.schema.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${access.schema.schema}".users WHERE workspace_id = $1 AND role = 'admin' AND active`,
      [ws.id],
    );
    expect(active[0]!.n).toBeGreaterThanOrEqual(1);
    expect(results.every((r) => [200, 403, 409].includes(r.status))).toBe(true);
  });
});

describe('requests not vouched for by the gateway', () => {
  test('when the principal header is missing, forged, expired or a service principal, then 401', async () => {
    const ws = await access.workspace();
    const { issueTicket } = await import('@tracker/kit');
    const { devSigningKey } = await import('@tracker/signing');
    const request = { audience: 'access', method: 'GET', path: '/api/v1/users', user: ws.admin.principal } as const;
    const forged = issueTicket(devSigningKey('issues'), request);
    const expired = issueTicket(devSigningKey('gateway'), request, Date.now() - 120_000);
    const valid = issueTicket(devSigningKey('gateway'), request);
    const tampered = valid.replace(/\.([^.]+)\./, (_m, payload: string) => {
      const json = JSON.parse(Buffer.from(payload, 'base64url').toString());
      return `.${Buffer.from(JSON.stringify({ ...json, sub: { ...json.sub, workspaceId: json.sub.workspaceId + 1 } })).toString('base64url')}.`;
    });
    for (const header of [undefined, forged, expired, tampered, 'garbage', 'v1.e30.AAAA']) {
      const res = await access.call('GET', '/api/v1/users', { headers: header ? { 'x-tracker-principal': header } : {} });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('unauthorized');
    }
    const service = await access.call('GET', '/api/v1/users', { as: { kind: 'service', service: 'gateway' } });
    expect(service.status).toBe(401);
  });

  test('when a route does not exist, then 404 problem', async () => {
    const ws = await access.workspace();
    const res = await access.call('DELETE', '/api/v1/users', { as: ws.admin.principal });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });

  test('health endpoints answer without a principal', async () => {
    expect((await access.call('GET', '/healthz')).status).toBe(200);
    const ready = await access.call('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ database: 'ok' });
  });
});
