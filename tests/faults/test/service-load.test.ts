import { Client } from 'pg';
import { seedWorkspace, startService, startSystem, type ServiceProcess, type System } from '@tracker/system-tests-support';
import { ANSWER_BOUND_MS, lockIssueRow, queueWithIssues, send, sleep, tally, type Outcome } from './service-support';

/** Concurrency against the issues service: its database pool exhausted, and 50 racing read-modify-write clients. */
let system: System;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;
const extra: ServiceProcess[] = [];
beforeAll(async () => {
  system = await startSystem();
  ws = await seedWorkspace(system);
}, 120_000);
afterAll(async () => {
  await Promise.all(extra.map((s) => s.stop('SIGTERM')));
  await system?.stop();
});

test('with the database pool exhausted, about 200 concurrent requests answer 2xx or 503 with Retry-After within a bound, never 500 or a hang, and a refused write changes nothing', async () => {
  // A second issues process on the same schema with only two pool connections, behind its own gateway.
  const issues = await startService('issues', {
    ...system.envOf('issues'),
    DATABASE_SCHEMA: system.issuesSchema.schema,
    ACCESS_URL: system.services.access.url,
    DATABASE_POOL_MAX: '2',
    // Longer than the hold below: the held PATCHes must keep both connections past the pool's wait limit
    // (the statement limit itself is tested in services/*/test/statement-timeout.test.ts).
    DATABASE_STATEMENT_TIMEOUT_MS: '30000',
  });
  extra.push(issues);
  const gateway = await system.startGateway({ ISSUES_URL: issues.url, RATE_LIMIT_PER_MINUTE: '0' });
  const token = ws.admin.token;
  const { queue, issues: [held, busy] } = await queueWithIssues(system, token, 'POOL', ['held', 'busy']);

  // Two PATCHes wait for a row lock inside their transactions: both pool connections are taken.
  const lock = await lockIssueRow(system, held!.id);
  let released = false;
  const monitor = new Client({ connectionString: system.issuesSchema.databaseUrl });
  await monitor.connect();
  try {
    const heldPatches = [1, 2].map((n) => send(gateway.url, 'PATCH', `/api/v1/issues/${held!.key}`, { token, body: { title: `held ${n}` }, label: 'held' }));
    // Backends waiting behind the lock, directly or behind another waiter.
    const waiting = async () => {
      const rows = (await monitor.query('SELECT pid, pg_blocking_pids(pid) AS blockers FROM pg_stat_activity WHERE cardinality(pg_blocking_pids(pid)) > 0')).rows;
      const behind = new Set<number>([lock.pid]);
      for (let grew = true; grew; ) {
        grew = false;
        for (const row of rows) {
          if (!behind.has(row.pid) && (row.blockers as number[]).some((b) => behind.has(b))) grew = behind.add(row.pid) !== undefined;
        }
      }
      return behind.size - 1;
    };
    const deadline = Date.now() + 10_000;
    while ((await waiting()) < 2 && Date.now() < deadline) await sleep(50);
    expect(await waiting()).toBe(2);

    const burst: Array<Promise<Outcome>> = [];
    for (let i = 0; i < 200; i++) {
      if (i % 4 === 0) burst.push(send(gateway.url, 'POST', `/api/v1/issues/${busy!.key}/comments`, { token, body: { body: `comment ${i}` }, label: 'comment' }));
      else if (i % 4 === 1) burst.push(send(gateway.url, 'POST', '/api/v1/issues/search', { token, body: { queue_ids: [queue.id] }, label: 'search' }));
      else burst.push(send(gateway.url, 'GET', `/api/v1/issues/${busy!.key}`, { token, label: 'read' }));
    }
    // Hold the connections past the pool's wait limit, so the burst meets a full pool.
    await sleep(6500);
    await lock.release();
    released = true;
    const outcomes = [...(await Promise.all(burst)), ...(await Promise.all(heldPatches))];

    const context = { all: tally(outcomes), slowestMs: Math.max(...outcomes.map((o) => o.ended - o.started)) };
    const bad = outcomes.filter((o) => ![200, 201, 503].includes(o.status));
    expect({ context, bad }).toMatchObject({ bad: [] });
    const refused = outcomes.filter((o) => o.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    expect({ context, withoutRetryAfter: refused.filter((o) => !o.retryAfter || o.code !== 'service_unavailable') }).toMatchObject({ withoutRetryAfter: [] });
    expect(context.slowestMs).toBeLessThan(ANSWER_BOUND_MS);

    // A refused comment left nothing behind; every accepted one is there once.
    const accepted = outcomes.filter((o) => o.label === 'comment' && o.status === 201).map((o) => o.body.body).sort();
    const stored = await system.issuesSchema.query<{ body: string }>(
      `SELECT c.body FROM "${system.issuesSchema.schema}".comments c JOIN "${system.issuesSchema.schema}".issues i ON i.id = c.issue_id WHERE i.id = $1 ORDER BY c.body`,
      [busy!.id],
    );
    expect(stored.map((r) => r.body).sort()).toEqual(accepted);
  } finally {
    if (!released) await lock.release();
    await monitor.end();
  }

  // The pool recovers: the same kind of burst, without the held connections, is served in full.
  const after = await Promise.all(Array.from({ length: 50 }, () => send(gateway.url, 'GET', `/api/v1/issues/${busy!.key}`, { token })));
  expect(tally(after)).toEqual({ 200: 50 });
}, 90_000);

test('50 clients each read the issue and PATCH it with the version they read: final version = 1 + the 200s, every 200 change is kept, the rest are 409', async () => {
  const token = ws.admin.token;
  const { issues: [issue] } = await queueWithIssues(system, token, 'RACE', ['race']);
  const path = `/api/v1/issues/${issue!.key}`;

  const clients = await Promise.all(
    Array.from({ length: 50 }, async (_, i) => {
      const read = await send(system.gatewayUrl, 'GET', path, { token });
      expect(read.status).toBe(200);
      const { version, description, estimate_minutes } = read.body;
      // Appends its own mark and counts itself in: a lost update drops one of them.
      const write = await send(system.gatewayUrl, 'PATCH', path, {
        token,
        body: { version, description: `${description}[c${i}]`, estimate_minutes: estimate_minutes + 1 },
      });
      return { i, write };
    }),
  );

  const ok = clients.filter((c) => c.write.status === 200);
  const conflicts = clients.filter((c) => c.write.status === 409);
  expect(tally(clients.map((c) => c.write))).toEqual({ 200: ok.length, ...(conflicts.length ? { 409: conflicts.length } : {}) });
  expect(ok.length).toBeGreaterThan(0);
  expect(conflicts.length).toBeGreaterThan(0);
  for (const c of conflicts) expect(c.write.body).toMatchObject({ status: 409, code: 'version_conflict', version: expect.any(Number) });

  const final = await system.api('GET', path, { token });
  expect(final.body.version).toBe(1 + ok.length);
  expect(final.body.estimate_minutes).toBe(ok.length);
  const marks = (final.body.description as string).match(/\[c\d+\]/g) ?? [];
  expect(marks.sort()).toEqual(ok.map((c) => `[c${c.i}]`).sort());
  // The history records each accepted change once, and nothing of a refused one.
  const descriptionChanges = (final.body.history as Array<{ field: string }>).filter((h) => h.field === 'description');
  expect(descriptionChanges).toHaveLength(ok.length);
}, 60_000);
