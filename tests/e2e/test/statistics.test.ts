import { pollUntil, seedWorkspace, startService, startSystem, type System } from '@tracker/system-tests-support';

/**
 * Events end to end: writes through the gateway reach the statistics replica over
 * RabbitMQ; the statistics service can die alone and catches up when it returns.
 */
let system: System;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;
let queueId: number;

beforeAll(async () => {
  system = await startSystem();
  ws = await seedWorkspace(system);
  const queue = await system.api('POST', '/api/v1/queues', { token: ws.admin.token, body: { key: 'STAT', name: 'Stats' } });
  queueId = queue.body.id;
}, 120_000);
afterAll(() => system?.stop());

const statistics = () => system.api('POST', '/api/v1/statistics', { token: ws.admin.token, body: { queue_ids: [queueId] } });


describe('statistics from the event stream', () => {
  test('when issues are created and work is logged, then statistics reflect them within a second', async () => {
    const created = await Promise.all(
      Array.from({ length: 5 }, (_, i) => system.api('POST', '/api/v1/issues', { token: ws.admin.token, body: { queue_id: queueId, title: `Task ${i}`, estimate_minutes: 30 } })),
    );
    await system.api('POST', `/api/v1/issues/${created[0]!.body.key}/worklogs`, { token: ws.admin.token, body: { minutes: 45 } });
    const started = Date.now();
    const stats = await pollUntil(statistics, (r) => r.status === 200 && r.body.total === 5 && r.body.time.spent_minutes === 45, 15_000);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(stats.body).toMatchObject({
      total: 5,
      truncated: false,
      progress: { open: 5, progress: 0, done: 0, total: 5, done_percent: 0 },
      time: { estimate_minutes: 150, spent_minutes: 45 },
    });
    expect(typeof stats.body.as_of).toBe('string');
  });

  test('when the statistics service is killed, then statistics and dashboards answer 503 quickly while everything else works, and it catches up after a restart', async () => {
    // Every replica: the service is down, not one pod of it.
    const ports = system.instances('statistics').map((s) => s.port);
    await Promise.all(system.instances('statistics').map((s) => s.stop('SIGKILL')));
    for (const [method, path] of [['POST', '/api/v1/statistics'], ['GET', '/api/v1/dashboards'], ['GET', '/api/v1/dashboards/1/statistics']] as const) {
      const res = await system.api(method, path, { token: ws.admin.token, body: method === 'POST' ? {} : undefined });
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('statistics_unavailable');
      expect(res.headers.get('retry-after')).toBeTruthy();
      expect(res.ms).toBeLessThan(1000);
    }
    // Writes go on while it is down; none may be lost.
    const writes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => system.api('POST', '/api/v1/issues', { token: ws.admin.token, body: { queue_id: queueId, title: `While down ${i}` } })),
    );
    expect(writes.every((w) => w.status === 201)).toBe(true);
    const first = writes[0]!.body.key;
    const done = (await system.api('GET', '/api/v1/statuses', { token: ws.admin.token })).body.find(
      (s: { queue_id: number; category: string }) => s.queue_id === queueId && s.category === 'done',
    );
    expect((await system.api('PATCH', `/api/v1/issues/${first}`, { token: ws.admin.token, body: { status_id: done.id } })).status).toBe(200);
    expect((await system.api('GET', '/api/v1/me', { token: ws.admin.token })).status).toBe(200);

    // Back on their ports, behind the same round-robin when replicated.
    const restarted = await Promise.all(ports.map((port) => startService('statistics', system.statisticsEnv, { port })));
    [system.services.statistics, system.replicas.statistics] = [restarted[0]!, restarted.slice(1)];
    const caughtUp = await pollUntil(statistics, (r) => r.status === 200 && r.body.total === 25 && r.body.progress.done === 1, 15_000);
    expect(caughtUp.body).toMatchObject({ total: 25, progress: { done: 1, open: 24, total: 25, done_percent: 4 } });
  });

  test('dashboards work through the gateway for their owner, drawn in one request', async () => {
    const created = await system.api('POST', '/api/v1/dashboards', {
      token: ws.admin.token,
      body: { name: 'Ops overview', widgets: [{ type: 'stats', filters: { queue_ids: [queueId] } }, { type: 'time', filters: { queue_ids: [queueId], category: 'done' } }] },
    });
    expect(created.status).toBe(201);
    const listed = await system.api('GET', '/api/v1/dashboards', { token: ws.admin.token });
    expect(listed.body.map((d: { id: number }) => d.id)).toContain(created.body.id);
    const hidden = await system.api('GET', '/api/v1/dashboards', { token: ws.member.token });
    expect(hidden.body.map((d: { id: number }) => d.id)).not.toContain(created.body.id);

    const drawn = await system.api('GET', `/api/v1/dashboards/${created.body.id}/statistics`, { token: ws.admin.token });
    expect(drawn.status).toBe(200);
    const oneByOne = [];
    for (const widget of created.body.widgets) oneByOne.push((await system.api('POST', '/api/v1/statistics', { token: ws.admin.token, body: widget.filters })).body);
    expect(drawn.body).toEqual({ dashboard_id: created.body.id, widgets: oneByOne });
    expect(drawn.body.widgets.map((w: { total: number }) => w.total)).toEqual([25, 1]);
    expect((await system.api('GET', `/api/v1/dashboards/${created.body.id}/statistics`, { token: ws.member.token })).body).toMatchObject({ status: 404, code: 'not_found' });
  });
});
