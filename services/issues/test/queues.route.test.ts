import { Queue } from '@tracker/contracts';
import { problem, useIssuesService } from './harness';

const h = useIssuesService();

const counts = async (...tables: string[]) => {
  const result: number[] = [];
  for (const table of tables) result.push(await h.count(table));
  return result;
};

const STANDARD = [
  { name: 'Open', category: 'open', position: 1 },
  { name: 'In progress', category: 'progress', position: 2 },
  { name: 'In review', category: 'progress', position: 3 },
  { name: 'Done', category: 'done', position: 4 },
  { name: 'Cancelled', category: 'done', position: 5 },
];

describe('POST /api/v1/queues', () => {
  test('when a workspace admin creates a queue, then 201 with the upper-cased key, the standard statuses and an inherited admin role', async () => {
    const ws = await h.workspace();
    const res = await h.call('POST', '/api/v1/queues', { as: ws.admin, body: { key: 'ops_1', name: 'Operations' } });
    expect(res.status).toBe(201);
    expect(Queue.parse(res.body)).toEqual(res.body);
    expect(res.body).toEqual({
      id: expect.any(Number),
      workspace_id: ws.id,
      key: 'OPS_1',
      name: 'Operations',
      description: '',
      statuses: STANDARD.map((s) => ({ ...s, id: expect.any(Number), queue_id: res.body.id })),
      role: 'admin',
      role_source: 'inherited',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(h.access.registeredQueues.get(res.body.id)).toEqual({ workspaceId: ws.id, key: 'OPS_1' });
    const list = await h.call('GET', '/api/v1/queues', { as: ws.admin });
    expect(list.body).toEqual([res.body]);
  });

  test('when the queue is created, then one queue.created event with revision 1 is in the outbox', async () => {
    const ws = await h.workspace();
    const queue = await h.queue(ws, { key: 'EVT', name: 'Events', description: 'about events' });
    const rows = await h.outbox('queue', queue.id);
    expect(rows).toEqual([
      expect.objectContaining({
        type: 'queue.created',
        aggregate_revision: 1,
        payload: expect.objectContaining({
          workspace_id: ws.id,
          actor_id: ws.admin.id,
          data: { queue: expect.objectContaining({ id: queue.id, key: 'EVT', name: 'Events', description: 'about events' }) },
        }),
      }),
    ]);
    expect(rows[0]!.payload.data.queue.statuses).toHaveLength(5);
  });

  test('when a queue`s settings change, then queue.updated carries the old value of each changed setting', async () => {
    const ws = await h.workspace();
    const queue = await h.queue(ws, { key: 'PRV', name: 'Before', description: 'kept' });
    expect((await h.call('PATCH', `/api/v1/queues/${queue.id}`, { as: ws.admin, body: { name: 'After', description: 'kept' } })).status).toBe(200);
    const rows = await h.outbox('queue', queue.id);
    expect(rows.map((r) => [r.type, r.aggregate_revision])).toEqual([
      ['queue.created', 1],
      ['queue.updated', 2],
    ]);
    expect(rows[1]!.payload.data).toEqual({ queue: expect.objectContaining({ name: 'After', description: 'kept' }), previous: { name: 'Before' } });
  });

  test('when a member creates a queue, then 403 whatever the body, and nothing is created', async () => {
    const ws = await h.workspace();
    const member = h.member(ws.id);
    const before = await h.count('queues');
    for (const body of [{ key: 'MEM', name: 'x' }, { bogus: 1 }]) {
      const res = await h.call('POST', '/api/v1/queues', { as: member, body });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(problem(403, 'forbidden'));
    }
    expect(await h.count('queues')).toBe(before);
  });

  test('when the key is taken in the workspace in any case, then 409 queue_key_taken; another workspace may use it', async () => {
    const ws = await h.workspace();
    const other = await h.workspace();
    await h.queue(ws, { key: 'Dup' });
    const outboxBefore = await h.count('outbox_events');
    const res = await h.call('POST', '/api/v1/queues', { as: ws.admin, body: { key: 'dUP', name: 'Again' } });
    expect(res.status).toBe(409);
    expect(res.body).toEqual(problem(409, 'queue_key_taken'));
    expect(await h.count('outbox_events')).toBe(outboxBefore);
    expect((await h.call('POST', '/api/v1/queues', { as: other.admin, body: { key: 'DUP', name: 'Mine' } })).status).toBe(201);
  });

  test('when the same key is created concurrently, then exactly one 201 and the rest 409', async () => {
    const ws = await h.workspace();
    const replies = await Promise.all(
      Array.from({ length: 8 }, () => h.call('POST', '/api/v1/queues', { as: ws.admin, body: { key: 'RACE', name: 'Race' } })),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
  });

  test.each([
    ['a key of one character', 'key', { key: 'A', name: 'x' }],
    ['a key of 13 characters', 'key', { key: 'A'.repeat(13), name: 'x' }],
    ['a key starting with a digit', 'key', { key: '1AB', name: 'x' }],
    ['a key with a dash', 'key', { key: 'AB-C', name: 'x' }],
    ['a key with non-ASCII letters', 'key', { key: 'ÄBC', name: 'x' }],
    ['no key', 'key', { name: 'x' }],
    ['an empty name', 'name', { key: 'OK', name: '' }],
    ['a name of 101 characters', 'name', { key: 'OK', name: 'x'.repeat(101) }],
    ['a description over 10000 characters', 'description', { key: 'OK', name: 'x', description: 'd'.repeat(10_001) }],
    ['a null description', 'description', { key: 'OK', name: 'x', description: null }],
    ['an unknown field', 'color', { key: 'OK', name: 'x', color: 'red' }],
  ])('when the body has %s, then 422 naming %s and nothing is created', async (_label, path, body) => {
    const ws = await h.workspace();
    const before = await h.count('queues');
    const res = await h.call('POST', '/api/v1/queues', { as: ws.admin, body });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(problem(422, 'validation_failed'));
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect(await h.count('queues')).toBe(before);
  });

  test('when the access service cannot register the queue, then 503 and no queue, statuses or event remain', async () => {
    const ws = await h.workspace();
    const before = await counts('queues', 'statuses', 'outbox_events');
    h.access.setDown(true);
    try {
      const res = await h.call('POST', '/api/v1/queues', { as: ws.admin, body: { key: 'DOWN', name: 'x' } });
      expect(res.status).toBe(503);
      expect(res.body).toEqual(problem(503, 'service_unavailable'));
    } finally {
      h.access.setDown(false);
    }
    expect(await counts('queues', 'statuses', 'outbox_events')).toEqual(before);
    // The key was not consumed.
    expect((await h.call('POST', '/api/v1/queues', { as: ws.admin, body: { key: 'DOWN', name: 'x' } })).status).toBe(201);
  });
});

describe('GET /api/v1/queues', () => {
  test('when a member lists queues, then only queues with a grant come back, each with its explicit role', async () => {
    const ws = await h.workspace();
    const [a, b, c] = [await h.queue(ws), await h.queue(ws), await h.queue(ws)];
    const member = h.member(ws.id);
    h.grant(member, a.id, 'read-only');
    h.grant(member, c.id, 'admin');
    const res = await h.call('GET', '/api/v1/queues', { as: member });
    expect(res.status).toBe(200);
    expect(res.body.map((q: { id: number; role: string; role_source: string }) => [q.id, q.role, q.role_source])).toEqual([
      [a.id, 'read-only', 'explicit'],
      [c.id, 'admin', 'explicit'],
    ]);
    expect(res.body.some((q: { id: number }) => q.id === b.id)).toBe(false);
  });

  test('when a workspace admin with an explicit grant lists queues, then every queue shows admin inherited', async () => {
    const ws = await h.workspace();
    const a = await h.queue(ws);
    const admin2 = h.member(ws.id, { role: 'admin' });
    h.grant(admin2, a.id, 'read-only');
    const res = await h.call('GET', '/api/v1/queues', { as: admin2 });
    expect(res.body).toEqual([expect.objectContaining({ id: a.id, role: 'admin', role_source: 'inherited' })]);
  });

  test("when a grant names another workspace's queue, then it does not count", async () => {
    const ws = await h.workspace();
    const other = await h.workspace();
    const foreign = await h.queue(other);
    const member = h.member(ws.id);
    h.grant(member, foreign.id, 'admin');
    expect((await h.call('GET', '/api/v1/queues', { as: member })).body).toEqual([]);
    expect((await h.call('PATCH', `/api/v1/queues/${foreign.id}`, { as: member, body: { name: 'x' } })).status).toBe(404);
  });

  test('when a member has no grant at all, then an empty list', async () => {
    const ws = await h.workspace();
    await h.queue(ws);
    const res = await h.call('GET', '/api/v1/queues', { as: h.member(ws.id) });
    expect(res).toMatchObject({ status: 200, body: [] });
  });
});

describe('PATCH /api/v1/queues/{queue_id}', () => {
  test('when a queue admin renames a queue, then 200 with the new settings and a queue.updated event with revision 2', async () => {
    const ws = await h.workspace();
    const queue = await h.queue(ws, { name: 'Old' });
    const admin = h.member(ws.id);
    h.grant(admin, queue.id, 'admin');
    const res = await h.call('PATCH', `/api/v1/queues/${queue.id}`, { as: admin, body: { name: 'New', description: 'Now described' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...queue, name: 'New', description: 'Now described', role: 'admin', role_source: 'explicit', updated_at: expect.any(String) });
    const events = await h.outbox('queue', queue.id);
    expect(events.map((e) => [e.type, e.aggregate_revision])).toEqual([
      ['queue.created', 1],
      ['queue.updated', 2],
    ]);
    expect(events[1]!.payload.data.queue).toMatchObject({ name: 'New', description: 'Now described' });
  });

  test('when the settings change nothing, then 200 and no event', async () => {
    const ws = await h.workspace();
    const queue = await h.queue(ws, { name: 'Same' });
    for (const body of [{}, { name: 'Same' }, { description: '' }]) {
      const res = await h.call('PATCH', `/api/v1/queues/${queue.id}`, { as: ws.admin, body });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(queue);
    }
    expect(await h.outbox('queue', queue.id)).toHaveLength(1);
  });

  test.each([
    ['read-only', 403],
    ['read-write', 403],
  ] as const)('when a %s member patches the queue, then %i and nothing changes', async (role, status) => {
    const ws = await h.workspace();
    const queue = await h.queue(ws, { name: 'Kept' });
    const member = h.member(ws.id);
    h.grant(member, queue.id, role);
    const res = await h.call('PATCH', `/api/v1/queues/${queue.id}`, { as: member, body: { name: 'Changed' } });
    expect(res.status).toBe(status);
    expect(res.body).toEqual(problem(403, 'forbidden'));
    expect((await h.call('GET', '/api/v1/queues', { as: ws.admin })).body[0].name).toBe('Kept');
  });

  test('when the queue is hidden, unknown or in another workspace, then the same 404', async () => {
    const ws = await h.workspace();
    const other = await h.workspace();
    const hidden = await h.queue(ws);
    const foreign = await h.queue(other);
    const member = h.member(ws.id);
    const bodies = [];
    for (const [who, id] of [[member, hidden.id], [ws.admin, foreign.id], [ws.admin, 2_000_000_000]] as const) {
      const res = await h.call('PATCH', `/api/v1/queues/${id}`, { as: who, body: { name: 'x' } });
      expect(res.status).toBe(404);
      bodies.push({ ...res.body });
    }
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    expect(bodies[0]).toEqual(problem(404, 'not_found'));
  });

  test.each(['abc', '0', '-1', '1.5', '99999999999'])('when the queue id is %s, then 422', async (id) => {
    const ws = await h.workspace();
    const res = await h.call('PATCH', `/api/v1/queues/${id}`, { as: ws.admin, body: { name: 'x' } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ path: 'queue_id' })]);
  });

  test.each([
    ['an empty name', 'name', { name: '' }],
    ['a null name', 'name', { name: null }],
    ['a null description', 'description', { description: null }],
    ['a key (not changeable)', 'key', { key: 'NEW' }],
  ])('when the body has %s, then 422 naming %s', async (_label, path, body) => {
    const ws = await h.workspace();
    const queue = await h.queue(ws);
    const res = await h.call('PATCH', `/api/v1/queues/${queue.id}`, { as: ws.admin, body });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ path })]);
  });

  test('when called without a signed principal, then 401', async () => {
    const res = await h.call('PATCH', '/api/v1/queues/1', { body: { name: 'x' } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(problem(401, 'unauthorized'));
  });
});
