import { devTrustedKeysText, parseTrustedKeys, verifiedPayload } from '@tracker/kit';
import { aclCacheKey } from '@tracker/authz';
import { startAccess, type AccessHarness } from './harness';

const gateway = { kind: 'service', service: 'issues' } as const;
let access: AccessHarness;
let nextQueueId = 1000;

beforeAll(async () => {
  access = await startAccess();
});
afterAll(() => access.close());

/** A workspace with an admin, two members and one registered queue. */
async function setup() {
  const ws = await access.workspace();
  const [m1, m2] = await Promise.all([access.member(ws.id), access.member(ws.id)]);
  const queueId = ++nextQueueId;
  const reg = await access.call('POST', '/internal/queues', { as: gateway, body: { queue_id: queueId, workspace_id: ws.id, key: 'ops' } });
  expect(reg.status).toBe(200);
  return { ws, m1, m2, queueId, path: `/api/v1/queues/${queueId}/permissions` };
}

const grant = (s: Awaited<ReturnType<typeof setup>>, as: any, userId: number, role: string) =>
  access.call('PUT', `${s.path}/${userId}`, { as, body: { role } });

describe('GET /api/v1/queues/{queue_id}/permissions', () => {
  test('when a workspace admin asks, then members with explicit and inherited roles and the history come back', async () => {
    const s = await setup();
    await grant(s, s.ws.admin.principal, s.m1.id, 'read-write');
    const res = await access.call('GET', s.path, { as: s.ws.admin.principal });
    expect(res.status).toBe(200);
    expect(res.body.queue_id).toBe(s.queueId);
    expect(res.body.members).toEqual([
      expect.objectContaining({ user_id: s.ws.admin.id, role: 'admin', role_source: 'inherited', explicit_role: null, inherited_role: 'admin', workspace_role: 'admin' }),
      expect.objectContaining({ user_id: s.m1.id, role: 'read-write', role_source: 'explicit', explicit_role: 'read-write', inherited_role: null }),
    ]);
    expect(res.body.members.some((m: { user_id: number }) => m.user_id === s.m2.id)).toBe(false);
    expect(res.body.history).toEqual([{ user_id: s.m1.id, from: null, to: 'read-write', actor_id: s.ws.admin.id, at: expect.any(String) }]);
  });

  test('when a queue admin (explicit) asks, then 200; read-write or read-only members get 403; members without a role get 404', async () => {
    const s = await setup();
    const m3 = await access.member(s.ws.id);
    await grant(s, s.ws.admin.principal, s.m1.id, 'admin');
    await grant(s, s.ws.admin.principal, s.m2.id, 'read-write');
    await grant(s, s.ws.admin.principal, m3.id, 'read-only');
    expect((await access.call('GET', s.path, { as: s.m1.principal })).status).toBe(200);
    expect((await access.call('GET', s.path, { as: s.m2.principal })).status).toBe(403);
    expect((await access.call('GET', s.path, { as: m3.principal })).status).toBe(403);
    const outsider = await access.member(s.ws.id);
    const hidden = await access.call('GET', s.path, { as: outsider.principal });
    const unknown = await access.call('GET', '/api/v1/queues/987654/permissions', { as: outsider.principal });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual(unknown.body);
  });

  test("when another workspace's admin asks, then 404 exactly like an unknown queue", async () => {
    const s = await setup();
    const other = await access.workspace();
    const foreign = await access.call('GET', s.path, { as: other.admin.principal });
    const unknown = await access.call('GET', '/api/v1/queues/987654/permissions', { as: other.admin.principal });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(unknown.body);
  });

  test.each(['abc', '0', '-3'])('when the queue id is %s, then 422', async (id) => {
    const s = await setup();
    expect((await access.call('GET', `/api/v1/queues/${id}/permissions`, { as: s.ws.admin.principal })).status).toBe(422);
  });
});

describe('PUT /api/v1/queues/{queue_id}/permissions/{user_id}', () => {
  test('when an admin grants, then 200 with the new role, and the grant is in force before the answer (cache deleted)', async () => {
    const s = await setup();
    await access.call('GET', `/internal/acl/users/${s.m1.id}`, { as: gateway });
    expect(await access.redis.exists(aclCacheKey(s.m1.id))).toBe(1);
    const res = await grant(s, s.ws.admin.principal, s.m1.id, 'read-only');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      queue_id: s.queueId,
      user_id: s.m1.id,
      name: expect.any(String),
      active: true,
      workspace_role: 'member',
      role: 'read-only',
      role_source: 'explicit',
      explicit_role: 'read-only',
      inherited_role: null,
    });
    expect(await access.redis.exists(aclCacheKey(s.m1.id))).toBe(0);
    const acl = await access.call('GET', `/internal/acl/users/${s.m1.id}`, { as: gateway });
    expect(acl.body).toEqual({ user_id: s.m1.id, workspace_id: s.ws.id, grants: [{ queue_id: s.queueId, role: 'read-only' }] });
  });

  test('when a role is changed, then history records from and to, and the same role again changes nothing', async () => {
    const s = await setup();
    await grant(s, s.ws.admin.principal, s.m1.id, 'read-only');
    await grant(s, s.ws.admin.principal, s.m1.id, 'admin');
    await grant(s, s.ws.admin.principal, s.m1.id, 'admin');
    const res = await access.call('GET', s.path, { as: s.ws.admin.principal });
    expect(res.body.history.map((h: any) => [h.from, h.to])).toEqual([
      [null, 'read-only'],
      ['read-only', 'admin'],
    ]);
  });

  test('when a queue admin grants, then it works; a read-write member granting gets 403; a member without a role gets 404', async () => {
    const s = await setup();
    await grant(s, s.ws.admin.principal, s.m1.id, 'admin');
    expect((await grant(s, s.m1.principal, s.m2.id, 'read-write')).status).toBe(200);
    expect((await grant(s, s.m2.principal, s.m1.id, 'read-only')).status).toBe(403);
    const outsider = await access.member(s.ws.id);
    expect((await grant(s, outsider.principal, outsider.id, 'admin')).status).toBe(404);
  });

  test('when the target user is in another workspace or unknown, then 404 and nothing is recorded', async () => {
    const s = await setup();
    const other = await access.workspace();
    for (const userId of [other.admin.id, 987654]) {
      const res = await grant(s, s.ws.admin.principal, userId, 'read-only');
      expect(res.status).toBe(404);
    }
    expect((await access.call('GET', s.path, { as: s.ws.admin.principal })).body.history).toEqual([]);
  });

  test.each([
    [{ role: 'owner' }, 'role'],
    [{}, 'role'],
    [{ role: null }, 'role'],
    [{ role: 'admin', user_id: 3 }, 'user_id'],
  ])('when the body is %j, then 422 at %s and nothing changes', async (body, path) => {
    const s = await setup();
    const res = await access.call('PUT', `${s.path}/${s.m1.id}`, { as: s.ws.admin.principal, body });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect((await access.call('GET', s.path, { as: s.ws.admin.principal })).body.history).toEqual([]);
  });

  test('when a member calls it, then 403 for a queue they administer only if they are not queue admin', async () => {
    const s = await setup();
    await grant(s, s.ws.admin.principal, s.m1.id, 'read-only');
    expect((await grant(s, s.m1.principal, s.m1.id, 'admin')).status).toBe(403);
  });
});

describe('DELETE /api/v1/queues/{queue_id}/permissions/{user_id}', () => {
  test('when an explicit role is revoked, then 200 with no role left, the grant is gone at once, and a repeat changes nothing', async () => {
    const s = await setup();
    await grant(s, s.ws.admin.principal, s.m1.id, 'read-write');
    await access.call('GET', `/internal/acl/users/${s.m1.id}`, { as: gateway });
    const res = await access.call('DELETE', `${s.path}/${s.m1.id}`, { as: s.ws.admin.principal });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ user_id: s.m1.id, role: null, role_source: null, explicit_role: null });
    expect(await access.redis.exists(aclCacheKey(s.m1.id))).toBe(0);
    expect((await access.call('GET', `/internal/acl/users/${s.m1.id}`, { as: gateway })).body.grants).toEqual([]);
    expect((await access.call('DELETE', `${s.path}/${s.m1.id}`, { as: s.ws.admin.principal })).status).toBe(200);
    const history = (await access.call('GET', s.path, { as: s.ws.admin.principal })).body.history;
    expect(history.map((h: any) => [h.from, h.to])).toEqual([
      [null, 'read-write'],
      ['read-write', null],
    ]);
  });

  test('when a workspace admin’s explicit role is revoked, then they keep the inherited admin role', async () => {
    const s = await setup();
    const second = await access.member(s.ws.id, 'admin');
    await grant(s, s.ws.admin.principal, second.id, 'read-only');
    const res = await access.call('DELETE', `${s.path}/${second.id}`, { as: s.ws.admin.principal });
    expect(res.body).toMatchObject({ role: 'admin', role_source: 'inherited', explicit_role: null, inherited_role: 'admin' });
  });
});

describe('integration events', () => {
  test('grant, change and revoke write permission.changed with growing revisions; a user change writes user.updated', async () => {
    const s = await setup();
    await grant(s, s.ws.admin.principal, s.m1.id, 'read-only');
    await grant(s, s.ws.admin.principal, s.m1.id, 'admin');
    await access.call('DELETE', `${s.path}/${s.m1.id}`, { as: s.ws.admin.principal });
    await access.call('PATCH', `/api/v1/users/${s.m2.id}`, { as: s.ws.admin.principal, body: { name: 'Renamed' } });
    const rows = await access.schema.query<{ type: string; aggregate_id: string; aggregate_revision: number; payload: any }>(
      `SELECT type, aggregate_id, aggregate_revision, payload FROM "${access.schema.schema}".outbox_events WHERE workspace_id = $1 ORDER BY id`,
      [s.ws.id],
    );
    expect(rows.map((r) => [r.type, r.aggregate_id, r.aggregate_revision, r.payload.data.role ?? r.payload.data.user?.name])).toEqual([
      ['permission.changed', `${s.queueId}:${s.m1.id}`, 1, 'read-only'],
      ['permission.changed', `${s.queueId}:${s.m1.id}`, 2, 'admin'],
      ['permission.changed', `${s.queueId}:${s.m1.id}`, 3, undefined],
      ['user.updated', String(s.m2.id), 2, 'Renamed'],
    ]);
    expect(rows[2]!.payload.data.role).toBeNull();
    expect(rows[0]!.payload.actor_id).toBe(s.ws.admin.id);
  });

  test('a rejected change writes no event', async () => {
    const s = await setup();
    await access.call('PUT', `${s.path}/${s.m1.id}`, { as: s.m2.principal, body: { role: 'admin' } });
    await access.call('PATCH', `/api/v1/users/${s.ws.admin.id}`, { as: s.ws.admin.principal, body: { active: false } });
    const rows = await access.schema.query(`SELECT 1 FROM "${access.schema.schema}".outbox_events WHERE workspace_id = $1`, [s.ws.id]);
    expect(rows).toEqual([]);
  });
});

describe('internal API', () => {
  test('registering a queue is idempotent; registering its id for another workspace is refused', async () => {
    const s = await setup();
    const again = await access.call('POST', '/internal/queues', { as: gateway, body: { queue_id: s.queueId, workspace_id: s.ws.id, key: 'OPS' } });
    expect(again.status).toBe(200);
    const other = await access.workspace();
    const stolen = await access.call('POST', '/internal/queues', { as: gateway, body: { queue_id: s.queueId, workspace_id: other.id, key: 'OPS' } });
    expect(stolen.status).toBe(422);
  });

  test('a queue registered a moment ago takes grants at once', async () => {
    const ws = await access.workspace();
    const member = await access.member(ws.id);
    const queueId = ++nextQueueId;
    await access.call('POST', '/internal/queues', { as: gateway, body: { queue_id: queueId, workspace_id: ws.id, key: 'NEW' } });
    expect((await access.call('PUT', `/api/v1/queues/${queueId}/permissions/${member.id}`, { as: ws.admin.principal, body: { role: 'read-only' } })).status).toBe(200);
  });

  test('the ACL of an unknown user is 404; user principals cannot call internal routes', async () => {
    const s = await setup();
    expect((await access.call('GET', '/internal/acl/users/987654', { as: gateway })).status).toBe(404);
    expect((await access.call('GET', `/internal/acl/users/${s.m1.id}`, { as: s.ws.admin.principal })).status).toBe(401);
    expect((await access.call('POST', '/internal/queues', { as: s.ws.admin.principal, body: { queue_id: 5, workspace_id: s.ws.id, key: 'X1' } })).status).toBe(401);
  });

  test('users lookup returns only users of the workspace, with their active flag', async () => {
    const s = await setup();
    const other = await access.workspace();
    await access.call('PATCH', `/api/v1/users/${s.m2.id}`, { as: s.ws.admin.principal, body: { active: false } });
    const res = await access.call('POST', '/internal/users/lookup', {
      as: gateway,
      body: { workspace_id: s.ws.id, user_ids: [s.m1.id, s.m2.id, other.admin.id, 987654, s.m1.id] },
    });
    // Ordered by id; setup creates the two members concurrently, so either may have the lower id.
    const expected = [{ id: s.m1.id, active: true }, { id: s.m2.id, active: false }].sort((a, b) => a.id - b.id);
    expect(res.body).toEqual({ users: expected });
  });

  test('queues lookup returns only queues registered to the workspace, each once, ascending; at once after registration', async () => {
    const s = await setup();
    const other = await access.workspace();
    const foreignQueue = ++nextQueueId;
    await access.call('POST', '/internal/queues', { as: gateway, body: { queue_id: foreignQueue, workspace_id: other.id, key: 'FRN' } });
    const fresh = ++nextQueueId;
    expect((await access.call('POST', '/internal/queues', { as: gateway, body: { queue_id: fresh, workspace_id: s.ws.id, key: 'NEW' } })).status).toBe(200);
    const statistics = { kind: 'service', service: 'statistics' } as const;
    const res = await access.call('POST', '/internal/queues/lookup', {
      as: statistics,
      body: { workspace_id: s.ws.id, queue_ids: [fresh, foreignQueue, 987654321, s.queueId, fresh] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ queue_ids: [s.queueId, fresh] });
    expect((await access.call('POST', '/internal/queues/lookup', { as: statistics, body: { workspace_id: other.id, queue_ids: [] } })).body).toEqual({ queue_ids: [] });
  });

  test('queues lookup takes at most 1000 ids and only from a service principal', async () => {
    const s = await setup();
    const statistics = { kind: 'service', service: 'statistics' } as const;
    const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
    expect((await access.call('POST', '/internal/queues/lookup', { as: statistics, body: { workspace_id: s.ws.id, queue_ids: ids(1000) } })).status).toBe(200);
    const tooMany = await access.call('POST', '/internal/queues/lookup', { as: statistics, body: { workspace_id: s.ws.id, queue_ids: ids(1001) } });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors).toEqual([{ path: 'queue_ids', message: expect.any(String) }]);
    expect((await access.call('POST', '/internal/queues/lookup', { as: statistics, body: { workspace_id: s.ws.id, queue_ids: [0] } })).status).toBe(422);
    expect((await access.call('POST', '/internal/queues/lookup', { as: s.ws.admin.principal, body: { workspace_id: s.ws.id, queue_ids: [s.queueId] } })).status).toBe(401);
  });

  test('when grants change while ACL lookups run, then no stale grant list is left cached', async () => {
    const s = await setup();
    for (const role of ['read-only', 'admin', 'read-write', null] as const) {
      const change =
        role === null ? access.call('DELETE', `${s.path}/${s.m1.id}`, { as: s.ws.admin.principal }) : grant(s, s.ws.admin.principal, s.m1.id, role);
      await Promise.all([
        access.call('GET', `/internal/acl/users/${s.m1.id}`, { as: gateway }),
        change,
        access.call('GET', `/internal/acl/users/${s.m1.id}`, { as: gateway }),
      ]);
      const cached = await access.redis.get(aclCacheKey(s.m1.id));
      const expected = role === null ? [] : [{ queue_id: s.queueId, role }];
      if (cached) expect((verifiedPayload(cached, 'access', parseTrustedKeys(devTrustedKeysText()))?.value as { grants: unknown }).grants).toEqual(expected);
      expect((await access.call('GET', `/internal/acl/users/${s.m1.id}`, { as: gateway })).body.grants).toEqual(expected);
    }
  });
});
