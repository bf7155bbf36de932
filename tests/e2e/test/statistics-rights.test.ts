import { pollUntil, seedWorkspace, startSystem, type System } from '@tracker/system-tests-support';

/**
 * Who may name a queue in /statistics and /dashboards is the access service's knowledge,
 * current at once; the statistics replica may lag only in the figures. Here the broker is
 * cut, so no `queue.created` reaches the replica while the tests run: a queue a workspace
 * admin has just created must be theirs to name all the same, and a queue of another
 * workspace or one that does not exist must stay refused.
 */
let system: System;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;
let other: Awaited<ReturnType<typeof seedWorkspace>>;
/** Another workspace's queue that the replica knows (created before the cut). */
let replicatedForeign: number;
/** Another workspace's queue that the replica has not seen (created after the cut). */
let unseenForeign: number;
const NONEXISTENT = 2_000_000_000;

const replicaHas = async (queueId: number) =>
  (await system.statisticsSchema.query(`SELECT 1 FROM "${system.statisticsSchema.schema}".queues WHERE id = $1`, [queueId])).length === 1;

async function createQueue(token: string, key: string): Promise<number> {
  const res = await system.api('POST', '/api/v1/queues', { token, body: { key, name: key } });
  if (res.status !== 201) throw new Error(`POST /queues answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.id;
}

beforeAll(async () => {
  system = await startSystem();
  [ws, other] = await Promise.all([seedWorkspace(system), seedWorkspace(system)]);
  replicatedForeign = await createQueue(other.admin.token, 'FRN');
  expect(await pollUntil(() => replicaHas(replicatedForeign), Boolean, 15_000)).toBe(true);
  await system.amqpRelay.cut();
  unseenForeign = await createQueue(other.admin.token, 'FRX');
}, 120_000);
afterAll(async () => {
  await system?.amqpRelay.restore().catch(() => undefined);
  await system?.stop();
});

const statistics = (token: string, queueIds: number[]) => system.api('POST', '/api/v1/statistics', { token, body: { queue_ids: queueIds } });
const board = (queueIds: number[]) => ({ name: 'Fresh', widgets: [{ type: 'stats', filters: { queue_ids: queueIds } }] });
const listed = async (token: string) => {
  const res = await system.api('GET', '/api/v1/dashboards', { token });
  expect(res.status).toBe(200);
  return res.body.map((d: { id: number }) => d.id) as number[];
};

describe('a queue the replica has not heard of yet', () => {
  test('when a workspace admin creates a queue and at once asks for its statistics, then 200 with nothing counted', async () => {
    const queueId = await createQueue(ws.admin.token, 'NEWS');
    const res = await statistics(ws.admin.token, [queueId]);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 0, truncated: false, progress: { open: 0, progress: 0, done: 0, total: 0, done_percent: 0 }, queues: [], assignees: [] });
    expect(await replicaHas(queueId)).toBe(false);
  });

  test('when a workspace admin names the new queue in a dashboard, then 201, it is listed for them at once, and they may replace it', async () => {
    const queueId = await createQueue(ws.admin.token, 'NEWD');
    const created = await system.api('POST', '/api/v1/dashboards', { token: ws.admin.token, body: board([queueId]) });
    expect(created.status).toBe(201);
    expect(created.body.widgets[0].filters.queue_ids).toEqual([queueId]);
    expect(await listed(ws.admin.token)).toContain(created.body.id);
    // Not listed for a member without a grant on it; listed once they have one.
    expect(await listed(ws.member.token)).not.toContain(created.body.id);
    const replaced = await system.api('PUT', `/api/v1/dashboards/${created.body.id}`, { token: ws.admin.token, body: { ...board([queueId]), name: 'Renamed' } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.name).toBe('Renamed');
    expect(await replicaHas(queueId)).toBe(false);
  });

  test('when a member is granted the new queue, then they may name it at once too; without the grant, 403', async () => {
    const queueId = await createQueue(ws.admin.token, 'NEWM');
    expect((await statistics(ws.member.token, [queueId])).status).toBe(403);
    const grant = await system.api('PUT', `/api/v1/queues/${queueId}/permissions/${ws.member.id}`, { token: ws.admin.token, body: { role: 'read-only' } });
    expect(grant.status).toBe(200);
    expect((await statistics(ws.member.token, [queueId])).status).toBe(200);
    const created = await system.api('POST', '/api/v1/dashboards', { token: ws.member.token, body: board([queueId]) });
    expect(created.status).toBe(201);
    expect(await listed(ws.member.token)).toContain(created.body.id);
    expect(await replicaHas(queueId)).toBe(false);
  });

  test("when a member's dashboard names a queue the replica has not seen, then a workspace admin sees it at once (and as no owner may not replace it: 403, not 404)", async () => {
    const queueId = await createQueue(ws.admin.token, 'NEWL');
    await system.api('PUT', `/api/v1/queues/${queueId}/permissions/${ws.member.id}`, { token: ws.admin.token, body: { role: 'read-write' } });
    const created = await system.api('POST', '/api/v1/dashboards', { token: ws.member.token, body: board([queueId]) });
    expect(created.status).toBe(201);
    expect(await listed(ws.admin.token)).toContain(created.body.id);
    const put = await system.api('PUT', `/api/v1/dashboards/${created.body.id}`, { token: ws.admin.token, body: board([]) });
    expect({ status: put.status, code: put.body.code }).toEqual({ status: 403, code: 'forbidden' });
    expect(await replicaHas(queueId)).toBe(false);
  });

  test.each([
    ["another workspace's queue the replica knows", () => replicatedForeign],
    ["another workspace's queue the replica has not seen", () => unseenForeign],
    ['a queue that does not exist', () => NONEXISTENT],
  ])('when a workspace admin names %s, then statistics and dashboards answer 403 and nothing is created', async (_name, foreign) => {
    const fresh = await createQueue(ws.admin.token, `X${Math.random().toString(36).slice(2, 8).toUpperCase()}`);
    const before = await listed(ws.admin.token);
    for (const ids of [[foreign()], [fresh, foreign()]]) {
      const stats = await statistics(ws.admin.token, ids);
      expect({ ids, status: stats.status, code: stats.body.code }).toEqual({ ids, status: 403, code: 'forbidden' });
      const dashboard = await system.api('POST', '/api/v1/dashboards', { token: ws.admin.token, body: board(ids) });
      expect({ ids, status: dashboard.status, code: dashboard.body.code }).toEqual({ ids, status: 403, code: 'forbidden' });
    }
    expect(await listed(ws.admin.token)).toEqual(before);
    expect(await replicaHas(unseenForeign)).toBe(false);
  });
});
