import { Client } from 'pg';
import { seedWorkspace, startService, startSystem, type ServiceProcess, type System } from '@tracker/system-tests-support';
import { errorLines, loadLoops, lockIssueRow, queueWithIssues, send, sleep, tally, type Outcome } from './service-support';

/**
 * SIGTERM under load: the statistics service (with its event consumer) and the issues
 * service (with its outbox relay) are stopped while requests and writes keep coming.
 * Requests provably inside the service when the signal arrives are held there by a
 * database lock, so "in flight" is not a matter of timing.
 */
let system: System;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;
let fixture: Awaited<ReturnType<typeof queueWithIssues>>;
beforeAll(async () => {
  system = await startSystem();
  ws = await seedWorkspace(system);
  fixture = await queueWithIssues(system, ws.admin.token, 'SHUT', ['one', 'two', 'three', 'four']);
}, 120_000);
afterAll(() => system?.stop());

/** Answers a client may get from a service that is going away: success, or a clean refusal it can retry. */
const cleanAnswer = (o: Outcome) => (o.status >= 200 && o.status < 300) || (o.status === 503 && o.retryAfter !== null);

/**
 * Writes through the gateway that produce events (the statistics consumer's input). They
 * leave fixture.issues[0] alone: the issues test locks it, and only its held PATCHes may wait there.
 */
const writer = (token: string) => (loop: number, n: number) => {
  const issue = fixture.issues[1 + ((loop + n) % (fixture.issues.length - 1))]!;
  return n % 2 === 0
    ? send(system.gatewayUrl, 'PATCH', `/api/v1/issues/${issue.key}`, { token, body: { title: `w${loop}-${n}` }, label: 'write' })
    : send(system.gatewayUrl, 'POST', `/api/v1/issues/${issue.key}/worklogs`, { token, body: { minutes: 1 + (n % 5) }, label: 'write' });
};

/** Sends SIGTERM and reports the exit code and how long the process took to exit. */
async function terminate(service: ServiceProcess) {
  const sent = Date.now();
  const code = await service.stop('SIGTERM');
  return { sent, code, ms: Date.now() - sent };
}

async function waitingBehind(monitor: Client, pid: number): Promise<number> {
  const rows = (await monitor.query('SELECT pid, pg_blocking_pids(pid) AS blockers FROM pg_stat_activity WHERE cardinality(pg_blocking_pids(pid)) > 0')).rows;
  const behind = new Set<number>([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const row of rows) {
      if (!behind.has(row.pid) && (row.blockers as number[]).some((b) => behind.has(b))) grew = behind.add(row.pid) !== undefined;
    }
  }
  return behind.size - 1;
}

async function untilWaiting(monitor: Client, pid: number, count: number) {
  const deadline = Date.now() + 10_000;
  while ((await waitingBehind(monitor, pid)) < count && Date.now() < deadline) await sleep(50);
  expect(await waitingBehind(monitor, pid)).toBeGreaterThanOrEqual(count);
}

test('SIGTERM to the statistics service under load: requests in flight answer 200, the consumer stops cleanly, exit 0 in time, no error logged', async () => {
  const token = ws.admin.token;
  const body = { queue_ids: [fixture.queue.id] };
  const ready = Date.now() + 20_000;
  while ((await system.api('POST', '/api/v1/statistics', { token, body })).status !== 200 && Date.now() < ready) await sleep(200);

  const writes = loadLoops(2, writer(token));
  const reads = loadLoops(2, () => send(system.gatewayUrl, 'POST', '/api/v1/statistics', { token, body, label: 'read' }));
  const monitor = new Client({ connectionString: system.statisticsSchema.databaseUrl });
  await monitor.connect();
  const statistics = system.services.statistics;
  try {
    await sleep(1000);
    // Reads of the replica (and the consumer's writes) now wait inside the service.
    const blocker = new Client({ connectionString: system.statisticsSchema.databaseUrl });
    await blocker.connect();
    const blockerPid = Number((await blocker.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
    await blocker.query('BEGIN');
    await blocker.query(`LOCK TABLE "${system.statisticsSchema.schema}".issues IN ACCESS EXCLUSIVE MODE`);
    const held = [1, 2, 3].map(() => send(system.gatewayUrl, 'POST', '/api/v1/statistics', { token, body, label: 'held' }));
    await untilWaiting(monitor, blockerPid, 3);
    // The loops' reads and the consumer's writes wait behind the lock too, and may make the
    // count alone; the held requests may be waiting for a pooled connection rather than in
    // Postgres. A moment more lets them all reach the service before it is told to stop.
    await sleep(500);

    const stopping = terminate(statistics);
    await sleep(1000);
    await blocker.query('ROLLBACK');
    await blocker.end();
    const { code, ms } = await stopping;
    await sleep(300);
    const outcomes = [...(await reads.stop()), ...(await writes.stop())];
    const heldOutcomes = await Promise.all(held);

    expect(heldOutcomes.map((o) => o.status)).toEqual([200, 200, 200]);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(10_000);
    const context = { reads: tally(outcomes.filter((o) => o.label === 'read')), writes: tally(outcomes.filter((o) => o.label === 'write')) };
    expect({ context, unclean: outcomes.filter((o) => !cleanAnswer(o)) }).toMatchObject({ unclean: [] });
    // Writes do not depend on the statistics service.
    expect({ context, failedWrites: outcomes.filter((o) => o.label === 'write' && o.status >= 300) }).toMatchObject({ failedWrites: [] });
    const refused = outcomes.filter((o) => o.status === 503);
    expect(refused.every((o) => o.code === 'statistics_unavailable')).toBe(true);

    const log = statistics.output();
    expect(log).toContain('"msg":"consumer stopped"');
    expect(log).toContain('"msg":"stopped"');
    expect(errorLines(statistics)).toEqual([]);
  } finally {
    await reads.stop();
    await writes.stop();
    await monitor.end();
  }
}, 60_000);

test('SIGTERM to the issues service under load: PATCHes in flight answer 200, the outbox relay stops cleanly, exit 0 in time; after restarts nothing is lost', async () => {
  const token = ws.admin.token;
  // Statistics was stopped by the previous test: bring it back on its port.
  system.services.statistics = await startService('statistics', system.statisticsEnv, { port: system.services.statistics.port });

  const writes = loadLoops(2, writer(token));
  const reads = loadLoops(2, (loop, n) => send(system.gatewayUrl, 'GET', `/api/v1/issues/${fixture.issues[(loop + n) % fixture.issues.length]!.key}`, { token, label: 'read' }));
  const monitor = new Client({ connectionString: system.issuesSchema.databaseUrl });
  await monitor.connect();
  const issues = system.services.issues;
  const target = fixture.issues[0]!;
  try {
    await sleep(1000);
    const lock = await lockIssueRow(system, target.id);
    const held = [1, 2, 3].map((n) => send(system.gatewayUrl, 'PATCH', `/api/v1/issues/${target.key}`, { token, body: { description: `held ${n}` }, label: 'held' }));
    // Only the held PATCHes lock this issue (the load's writes leave it alone, reads take no lock).
    await untilWaiting(monitor, lock.pid, 3);

    const stopping = terminate(issues);
    await sleep(1000);
    await lock.release();
    const { code, ms } = await stopping;
    await sleep(300);
    const outcomes = [...(await reads.stop()), ...(await writes.stop())];
    const heldOutcomes = await Promise.all(held);

    expect(heldOutcomes.map((o) => o.status)).toEqual([200, 200, 200]);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(10_000);
    const context = { reads: tally(outcomes.filter((o) => o.label === 'read')), writes: tally(outcomes.filter((o) => o.label === 'write')) };
    expect({ context, unclean: outcomes.filter((o) => !cleanAnswer(o)) }).toMatchObject({ unclean: [] });

    const log = issues.output();
    expect(log).toContain('"msg":"outbox relay stopped"');
    expect(log).toContain('"msg":"stopped"');
    expect(errorLines(issues)).toEqual([]);
  } finally {
    await reads.stop();
    await writes.stop();
    await monitor.end();
  }

  // Restarted, the issues service relays what was left in its outbox: the replica ends equal to the source.
  system.services.issues = await startService(
    'issues',
    { ...system.envOf('issues'), DATABASE_SCHEMA: system.issuesSchema.schema, ACCESS_URL: system.services.access.url },
    { port: issues.port },
  );
  const columns = 'id, revision, version, status_id, spent_minutes, title';
  const snapshot = async () =>
    Promise.all([
      system.issuesSchema.query(`SELECT ${columns} FROM "${system.issuesSchema.schema}".issues ORDER BY id`),
      system.statisticsSchema.query(`SELECT ${columns} FROM "${system.statisticsSchema.schema}".issues ORDER BY id`),
    ]);
  const deadline = Date.now() + 20_000;
  let [source, replica] = await snapshot();
  while (JSON.stringify(source) !== JSON.stringify(replica) && Date.now() < deadline) {
    await sleep(250);
    [source, replica] = await snapshot();
  }
  expect(replica).toEqual(source);
  const unsent = () => system.issuesSchema.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${system.issuesSchema.schema}".outbox_events WHERE published_at IS NULL`);
  while ((await unsent())[0]!.n > 0 && Date.now() < deadline) await sleep(100);
  expect(await unsent()).toEqual([{ n: 0 }]);
}, 90_000);
