import { randomUUID } from 'node:crypto';
import { DASHBOARD_LIMITS } from '@tracker/contracts';
import { problem, startStatistics, type StatisticsHarness } from './harness';

/** POST /dashboards under Idempotency-Key: one dashboard per key, the first answer replayed. */
let h: StatisticsHarness;
beforeAll(async () => {
  h = await startStatistics();
  await h.markBuilt();
});
afterAll(() => h.close());

const keyed = (key: string) => ({ 'Idempotency-Key': key });
const dashboardsOf = async (workspaceId: number) =>
  Number((await h.schema.query<{ n: string }>('SELECT count(*) AS n FROM dashboards WHERE workspace_id = $1', [workspaceId]))[0]!.n);

describe('POST /api/v1/dashboards with Idempotency-Key', () => {
  test('when the same dashboard is posted twice with one key, then one is created and the repeat replays the first answer', async () => {
    const ws = h.workspace();
    const owner = h.member(ws.id);
    const key = randomUUID();
    const body = { name: 'Once', widgets: [{ type: 'stats' }] };
    const first = await h.call('POST', '/api/v1/dashboards', { as: owner, body, headers: keyed(key) });
    const again = await h.call('POST', '/api/v1/dashboards', { as: owner, body, headers: keyed(key) });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await dashboardsOf(ws.id)).toBe(1);
  });

  test('when the key comes back with another body, then 422 idempotency_key_reused and nothing is created', async () => {
    const ws = h.workspace();
    const owner = h.member(ws.id);
    const key = randomUUID();
    await h.call('POST', '/api/v1/dashboards', { as: owner, body: { name: 'A', widgets: [] }, headers: keyed(key) });
    const reused = await h.call('POST', '/api/v1/dashboards', { as: owner, body: { name: 'B', widgets: [] }, headers: keyed(key) });
    expect(reused.status).toBe(422);
    expect(reused.body).toEqual(problem(422, 'idempotency_key_reused'));
    expect(await dashboardsOf(ws.id)).toBe(1);
  });

  test('when 8 repeats race at the workspace maximum less one, then one dashboard is created and every repeat replays it (none is refused as over the limit)', async () => {
    const ws = h.workspace();
    const owner = h.member(ws.id);
    for (let n = 1; n < DASHBOARD_LIMITS.perWorkspace; n++) {
      await h.schema.query(`INSERT INTO dashboards (workspace_id, owner_id, name, widgets, queue_ids) VALUES ($1, $2, $3, '[]', '{}')`, [ws.id, owner.id, `d${n}`]);
    }
    const key = randomUUID();
    const body = { name: 'Last', widgets: [] };
    const answers = await Promise.all(Array.from({ length: 8 }, () => h.call('POST', '/api/v1/dashboards', { as: owner, body, headers: keyed(key) })));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(await dashboardsOf(ws.id)).toBe(DASHBOARD_LIMITS.perWorkspace);
  });

  test('when the workspace is full, then 422 and the key is not kept: the same key works once room is made', async () => {
    const ws = h.workspace();
    const owner = h.member(ws.id);
    for (let n = 0; n < DASHBOARD_LIMITS.perWorkspace; n++) {
      await h.schema.query(`INSERT INTO dashboards (workspace_id, owner_id, name, widgets, queue_ids) VALUES ($1, $2, $3, '[]', '{}')`, [ws.id, owner.id, `d${n}`]);
    }
    const key = randomUUID();
    const body = { name: 'Later', widgets: [] };
    expect((await h.call('POST', '/api/v1/dashboards', { as: owner, body, headers: keyed(key) })).status).toBe(422);
    await h.schema.query('DELETE FROM dashboards WHERE id = (SELECT min(id) FROM dashboards WHERE workspace_id = $1)', [ws.id]);
    const retried = await h.call('POST', '/api/v1/dashboards', { as: owner, body, headers: keyed(key) });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBe('false');
  });

  test('when statistics are asked with a key, then it is checked and has no effect; an invalid key is 422', async () => {
    const ws = h.workspace();
    const owner = h.member(ws.id);
    expect((await h.call('POST', '/api/v1/statistics', { as: owner, body: {}, headers: keyed('stats-1') })).status).toBe(200);
    expect((await h.call('POST', '/api/v1/statistics', { as: owner, body: { search: 'x' }, headers: keyed('stats-1') })).status).toBe(200);
    const bad = await h.call('POST', '/api/v1/statistics', { as: owner, body: {}, headers: keyed('has space') });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual([{ path: 'Idempotency-Key', message: expect.any(String) }]);
  });
});
