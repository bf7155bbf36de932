import { devTrustedKeysText, parseTrustedKeys, verifiedPayload } from '@tracker/signing';
import { aclCacheKey } from '@tracker/authz';
import { ISSUE_READ_LIMITS } from '@tracker/contracts';
import { INVALID_PAGE_QUERIES, VALID_PAGE_QUERIES } from '@tracker/testing';
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

/** The roles a change sets, in turn: each PUT changes the role, so each records one change. */
const ROLES = ['read-only', 'read-write', 'admin'] as const;

/** A queue whose member m1 had their role changed `count` times by the workspace admin; the changes as the API shows them, oldest first. */
async function withChanges(count: number) {
  const s = await setup();
  const changes = [];
  for (let n = 0; n < count; n++) {
    const to = ROLES[n % ROLES.length]!;
    expect((await grant(s, s.ws.admin.principal, s.m1.id, to)).status).toBe(200);
    changes.push({ user_id: s.m1.id, from: n === 0 ? null : ROLES[(n - 1) % ROLES.length]!, to, actor_id: s.ws.admin.id, at: expect.any(String) });
  }
  return { ...s, changes };
}

/** Every change of the queue, following next_after_id from after_id=0; the pages as they came. */
async function walk(path: string, as: any, limit: number) {
  const pages = [];
  for (let after = 0; ; ) {
    const res = await access.call('GET', `${path}/history?after_id=${after}&limit=${limit}`, { as });
    expect(res.status).toBe(200);
    pages.push(res.body);
    if (res.body.next_after_id === null) break;
    expect(res.body.next_after_id).toBeGreaterThan(after);
    after = res.body.next_after_id;
  }
  return pages;
}

describe('the permission history is bounded: the read embeds the newest, GET …/permissions/history pages', () => {
  test('when a queue has 65 changes, then the read answers the newest 50, oldest first, and history_total 65', async () => {
    const s = await withChanges(65);
    const res = await access.call('GET', s.path, { as: s.ws.admin.principal });
    expect(res.status).toBe(200);
    expect(res.body.history).toHaveLength(ISSUE_READ_LIMITS.embedded);
    expect(res.body.history).toEqual(s.changes.slice(-ISSUE_READ_LIMITS.embedded));
    expect(res.body.history_total).toBe(65);
  });

  test('when the pages are followed from after_id=0, then every change comes once, oldest first, without gaps, and the last 50 are the read\'s', async () => {
    const s = await withChanges(65);
    const read = await access.call('GET', s.path, { as: s.ws.admin.principal });
    const pages = await walk(s.path, s.ws.admin.principal, 20);
    expect(pages.map((p) => [p.items.length, p.total])).toEqual([[20, 65], [20, 65], [20, 65], [5, 65]]);
    const all = pages.flatMap((p) => p.items);
    expect(all).toEqual(s.changes);
    expect(all.slice(-ISSUE_READ_LIMITS.embedded)).toEqual(read.body.history);
    // Without a query: the first page of 50, and where the next starts.
    const first = await access.call('GET', `${s.path}/history`, { as: s.ws.admin.principal });
    expect([first.status, first.body.items, first.body.total]).toEqual([200, s.changes.slice(0, 50), 65]);
    const rest = await access.call('GET', `${s.path}/history?after_id=${first.body.next_after_id}`, { as: s.ws.admin.principal });
    expect(rest.body).toEqual({ items: s.changes.slice(50), total: 65, next_after_id: null });
  });

  test('when the queue has no changes, or the page starts past the last, then no items and next_after_id null', async () => {
    const s = await setup();
    expect((await access.call('GET', `${s.path}/history`, { as: s.ws.admin.principal })).body).toEqual({ items: [], total: 0, next_after_id: null });
    expect((await access.call('GET', s.path, { as: s.ws.admin.principal })).body).toMatchObject({ history: [], history_total: 0 });
    await grant(s, s.ws.admin.principal, s.m1.id, 'read-only');
    const past = await access.call('GET', `${s.path}/history?after_id=2147483647`, { as: s.ws.admin.principal });
    expect(past.body).toEqual({ items: [], total: 1, next_after_id: null });
  });

  test('when another queue has changes, then they are neither listed nor counted', async () => {
    const s = await withChanges(3);
    const t = await withChanges(2);
    expect((await access.call('GET', `${t.path}/history?limit=50`, { as: t.ws.admin.principal })).body).toEqual({ items: t.changes, total: 2, next_after_id: null });
    expect((await access.call('GET', s.path, { as: s.ws.admin.principal })).body).toMatchObject({ history: s.changes, history_total: 3 });
  });

  test(`when a queue has more than ${ISSUE_READ_LIMITS.counted.toLocaleString('en-US')} changes, then the totals stop there and the read and a page stay bounded`, async () => {
    const s = await withChanges(1);
    await access.service.pool.query(
      `INSERT INTO permission_changes (queue_id, user_id, actor_id, from_role, to_role) SELECT $1, $2, $3, 'read-only', 'read-write' FROM generate_series(1, $4::int)`,
      [s.queueId, s.m1.id, s.ws.admin.id, ISSUE_READ_LIMITS.counted],
    );
    const read = await access.call('GET', s.path, { as: s.ws.admin.principal });
    expect([read.body.history.length, read.body.history_total]).toEqual([ISSUE_READ_LIMITS.embedded, ISSUE_READ_LIMITS.counted]);
    const page = await access.call('GET', `${s.path}/history?limit=${ISSUE_READ_LIMITS.pageMax}`, { as: s.ws.admin.principal });
    expect([page.body.items.length, page.body.total, page.body.items[0]]).toEqual([ISSUE_READ_LIMITS.pageMax, ISSUE_READ_LIMITS.counted, s.changes[0]]);
  });

  test('when a queue admin (explicit) pages, then 200; read-write or read-only members get 403; members without a role and other workspaces 404 as for an unknown queue', async () => {
    const s = await setup();
    const m3 = await access.member(s.ws.id);
    await grant(s, s.ws.admin.principal, s.m1.id, 'admin');
    await grant(s, s.ws.admin.principal, s.m2.id, 'read-write');
    await grant(s, s.ws.admin.principal, m3.id, 'read-only');
    const history = `${s.path}/history`;
    const own = await access.call('GET', history, { as: s.m1.principal });
    expect([own.status, own.body.total]).toEqual([200, 3]);
    for (const member of [s.m2, m3]) {
      const res = await access.call('GET', history, { as: member.principal });
      expect([res.status, res.body.code]).toEqual([403, 'forbidden']);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    const outsider = await access.member(s.ws.id);
    const other = await access.workspace();
    for (const stranger of [outsider.principal, other.admin.principal]) {
      const hidden = await access.call('GET', history, { as: stranger });
      const unknown = await access.call('GET', '/api/v1/queues/987654/permissions/history', { as: stranger });
      expect([hidden.status, hidden.body.code]).toEqual([404, 'not_found']);
      expect(hidden.body).toEqual(unknown.body);
    }
  });

  test('when the query is not a page, then 422 problem naming each parameter, as the issue lists answer', async () => {
    const s = await withChanges(1);
    for (const [query, paths] of INVALID_PAGE_QUERIES) {
      const res = await access.call('GET', `${s.path}/history?${query}`, { as: s.ws.admin.principal });
      expect({ query, status: res.status, code: res.body.code }).toEqual({ query, status: 422, code: 'validation_failed' });
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect({ query, paths: res.body.errors.map((e: { path: string }) => e.path).sort() }).toEqual({ query, paths });
    }
    for (const query of VALID_PAGE_QUERIES) {
      expect((await access.call('GET', `${s.path}/history?${query}`, { as: s.ws.admin.principal })).status).toBe(200);
    }
  });

  test.each(['abc', '0', '-3'])('when the queue id is %s, then 422', async (id) => {
    const s = await setup();
    expect((await access.call('GET', `/api/v1/queues/${id}/permissions/history`, { as: s.ws.admin.principal })).status).toBe(422);
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
      `SELECT type, aggregate_id, aggregate_revision, payload FROM "${access.schema.schema}".outbox_events WHERE workspace_id = $1 AND type <> 'user.created' ORDER BY id`,
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
    // What the public events need: the explicit role before, the user as the permissions read shows them, the old values of a user's changed fields.
    expect(rows.slice(0, 3).map((r) => [r.payload.data.previous_role, r.payload.data.member])).toEqual([
      [null, { name: s.m1.name, active: true, workspace_role: 'member' }],
      ['read-only', { name: s.m1.name, active: true, workspace_role: 'member' }],
      ['admin', { name: s.m1.name, active: true, workspace_role: 'member' }],
    ]);
    expect(rows[3]!.payload.data).toEqual({
      user: { id: s.m2.id, name: 'Renamed', role: 'member', active: true, email: null, created_at: expect.any(String), updated_at: expect.any(String) },
      previous: { name: s.m2.name },
    });
  });

  test('a new user writes user.created with the user as GET /users shows them: the operator`s (no actor) and an invited one (the admin)', async () => {
    const s = await setup();
    const email = `inv-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const invited = await access.call('POST', '/api/v1/users', { as: s.ws.admin.principal, body: { name: 'Invited', email, role: 'member' } });
    expect(invited.status).toBe(201);
    const rows = await access.schema.query<{ aggregate_id: string; aggregate_revision: number; payload: any }>(
      `SELECT aggregate_id, aggregate_revision, payload FROM "${access.schema.schema}".outbox_events WHERE workspace_id = $1 AND type = 'user.created' ORDER BY aggregate_id::int`,
      [s.ws.id],
    );
    expect(rows.map((r) => [r.aggregate_id, r.aggregate_revision, r.payload.actor_id, r.payload.data.user.name])).toEqual([
      [String(s.ws.admin.id), 1, null, 'Admin'],
      [String(s.m1.id), 1, null, s.m1.name],
      [String(s.m2.id), 1, null, s.m2.name],
      [String(invited.body.id), 1, s.ws.admin.id, 'Invited'],
    ].sort((a, b) => Number(a[0]) - Number(b[0])));
    const { setup_url: _url, workspace_id: _ws, ...shown } = invited.body;
    expect(rows.find((r) => r.aggregate_id === String(invited.body.id))!.payload.data).toEqual({ user: shown });
  });

  test('a setup link that changes a user`s email writes user.updated with the old email', async () => {
    const s = await setup();
    const email = `new-${Math.random().toString(36).slice(2, 8)}@example.com`;
    expect((await access.call('POST', `/api/v1/users/${s.m1.id}/setup-link`, { as: s.ws.admin.principal, body: { email } })).status).toBe(200);
    expect((await access.call('POST', `/api/v1/users/${s.m1.id}/setup-link`, { as: s.ws.admin.principal, body: { email } })).status).toBe(200);
    const rows = await access.schema.query<{ aggregate_revision: number; payload: any }>(
      `SELECT aggregate_revision, payload FROM "${access.schema.schema}".outbox_events WHERE workspace_id = $1 AND type = 'user.updated' ORDER BY id`,
      [s.ws.id],
    );
    // The second link keeps the email: no change, no event.
    expect(rows.map((r) => [r.aggregate_revision, r.payload.actor_id, r.payload.data.user.email, r.payload.data.previous])).toEqual([[2, s.ws.admin.id, email, { email: null }]]);
  });

  test('a rejected change writes no event', async () => {
    const s = await setup();
    await access.call('PUT', `${s.path}/${s.m1.id}`, { as: s.m2.principal, body: { role: 'admin' } });
    await access.call('PATCH', `/api/v1/users/${s.ws.admin.id}`, { as: s.ws.admin.principal, body: { active: false } });
    const rows = await access.schema.query(`SELECT 1 FROM "${access.schema.schema}".outbox_events WHERE workspace_id = $1 AND type <> 'user.created'`, [s.ws.id]);
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
