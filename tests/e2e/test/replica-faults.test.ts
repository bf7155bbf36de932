import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { startService } from '@tracker/testing';
import { seedWorkspace, startSystem, type System } from '@tracker/testing';

/**
 * "Nothing lost, nothing doubled": a burst of writes through the gateway while the
 * statistics service is killed with SIGKILL and the broker connections of every service
 * are cut; afterwards the replica equals the source row by row.
 */
let system: System;
beforeAll(async () => {
  system = await startSystem();
}, 120_000);
afterAll(() => system?.stop());

interface Row {
  id: number;
  revision: number;
  version: number;
  status_id: number;
  spent_minutes: number;
  title: string;
  assignee_id: number | null;
}
const COLUMNS = 'id, revision, version, status_id, spent_minutes, title, assignee_id';

async function snapshot(): Promise<{ source: Row[]; replica: Row[] }> {
  const [source, replica] = await Promise.all([
    system.issuesSchema.query<Row & Record<string, unknown>>(`SELECT ${COLUMNS} FROM "${system.issuesSchema.schema}".issues ORDER BY id`),
    system.statisticsSchema.query<Row & Record<string, unknown>>(`SELECT ${COLUMNS} FROM "${system.statisticsSchema.schema}".issues ORDER BY id`),
  ]);
  return { source, replica };
}

test('the replica equals the source after a burst with the statistics service killed and the broker cut', async () => {
  const ws = await seedWorkspace(system);
  const token = ws.admin.token;
  const queue = await system.api('POST', '/api/v1/queues', { token, body: { key: 'BURST', name: 'Burst' } });
  const statuses: Array<{ id: number }> = queue.body.statuses;
  const keys: string[] = [];
  const statisticsPort = system.services.statistics.port;

  const ROUNDS = 12;
  for (let round = 0; round < ROUNDS; round++) {
    if (round === 3) await system.services.statistics.stop('SIGKILL');
    if (round === 6) await system.amqpRelay.cut();
    if (round === 8) await system.amqpRelay.restore();
    if (round === 9) system.services.statistics = await startService('statistics', system.statisticsEnv, { port: statisticsPort });
    const writes = Array.from({ length: 10 }, (_, i) =>
      system.api('POST', '/api/v1/issues', { token, body: { queue_id: queue.body.id, title: `r${round} i${i}`, estimate_minutes: i } }),
    );
    const created = await Promise.all(writes);
    expect(created.every((r) => r.status === 201)).toBe(true);
    keys.push(...created.map((r) => r.body.key));
    const touched = keys.slice(-15);
    const updates = await Promise.all(
      touched.map((key, i) =>
        i % 3 === 0
          ? system.api('POST', `/api/v1/issues/${key}/worklogs`, { token, body: { minutes: 1 + (i % 7) } })
          : system.api('PATCH', `/api/v1/issues/${key}`, { token, body: { status_id: statuses[(round + i) % statuses.length]!.id, title: `moved in r${round}` } }),
      ),
    );
    expect(updates.every((r) => r.status === 200 || r.status === 201)).toBe(true);
  }

  const deadline = Date.now() + 30_000;
  let state = await snapshot();
  while (JSON.stringify(state.replica) !== JSON.stringify(state.source) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    state = await snapshot();
  }
  expect(state.source).toHaveLength(ROUNDS * 10);
  expect(state.replica).toEqual(state.source);

  const stats = await system.api('POST', '/api/v1/statistics', { token, body: { queue_ids: [queue.body.id] } });
  expect(stats.status).toBe(200);
  expect(stats.body.total).toBe(ROUNDS * 10);
  expect(stats.body.time.spent_minutes).toBe(state.source.reduce((sum, r) => sum + r.spent_minutes, 0));
}, 180_000);

test('a rebuild from scratch by the operator command, while writes go on, ends identical to the source', async () => {
  const ws = await seedWorkspace(system);
  const token = ws.admin.token;
  const queue = await system.api('POST', '/api/v1/queues', { token, body: { key: 'REBUILD', name: 'Rebuild' } });
  const seed = await Promise.all(
    Array.from({ length: 40 }, (_, i) => system.api('POST', '/api/v1/issues', { token, body: { queue_id: queue.body.id, title: `before ${i}` } })),
  );
  expect(seed.every((r) => r.status === 201)).toBe(true);

  const rebuild = promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/rebuild.ts'], {
    cwd: path.resolve(__dirname, '../../../services/statistics'),
    env: { PATH: process.env.PATH ?? '', ...system.statisticsEnv, LOG_LEVEL: 'silent' },
  });
  let writing = true;
  const writer = (async () => {
    let i = 0;
    while (writing) {
      const key = seed[i % seed.length]!.body.key;
      await system.api('PATCH', `/api/v1/issues/${key}`, { token, body: { title: `during ${i}` } });
      await system.api('POST', `/api/v1/issues/${key}/worklogs`, { token, body: { minutes: 1 } });
      i++;
    }
  })();
  const { stdout } = await rebuild;
  writing = false;
  await writer;
  expect(JSON.parse(stdout.trim().split('\n').pop()!)).toMatchObject({ completed: true });

  const deadline = Date.now() + 30_000;
  let state = await snapshot();
  while (JSON.stringify(state.replica) !== JSON.stringify(state.source) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    state = await snapshot();
  }
  expect(state.replica).toEqual(state.source);
}, 120_000);
