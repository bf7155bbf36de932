import { spawn } from 'node:child_process';
import path from 'node:path';
import { rebuildLock } from '../src/data-access/rebuild-lock';
import { event, issueHistory, issueState, newId, queueHistory, queueState, rng } from './fixtures';
import { eventually, expectedReplica, problem, readReplica, startStatistics, type StatisticsHarness } from './harness';

/** Rebuilding the replica from the issues service's snapshot, with the consumer running. */
let h: StatisticsHarness;
const watchers: Array<{ stop: () => Promise<void> }> = [];
beforeAll(async () => {
  h = await startStatistics({ consumer: true, env: { SNAPSHOT_PAGE_SIZE: '7', REPLICA_CHECK_INTERVAL_MS: '200' } });
});
afterAll(async () => {
  await Promise.all(watchers.map((w) => w.stop()));
  await h.close();
});

const isBuilt = () => h.service.replica.isBuilt();
const start = new Date('2026-04-01T00:00:00Z');

describe('before the replica is built', () => {
  test('when statistics or dashboards are asked for, then 503 statistics_unavailable with Retry-After', async () => {
    expect(await isBuilt()).toBe(false);
    const ws = h.workspace();
    const requests: Array<[string, string, unknown]> = [
      ['POST', '/api/v1/statistics', {}],
      // Not built comes first: a queue no one can read is not a 403 yet.
      ['POST', '/api/v1/statistics', { queue_ids: [987_654_321] }],
      ['GET', '/api/v1/dashboards', undefined],
      ['POST', '/api/v1/dashboards', { name: 'D', widgets: [] }],
      ['PUT', '/api/v1/dashboards/1', { name: 'D', widgets: [] }],
      ['GET', '/api/v1/dashboards/1/statistics', undefined],
    ];
    for (const [method, path, body] of requests) {
      const res = await h.call(method, path, { as: ws.admin, body });
      expect({ method, path, status: res.status, body: res.body }).toEqual({ method, path, status: 503, body: problem(503, 'statistics_unavailable') });
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    }
    expect((await h.call('GET', '/readyz')).status).toBe(200);
  });
});

describe('rebuild', () => {
  test('when the replica is rebuilt from the snapshot while events flow, then it ends identical to the final state, and answers', async () => {
    const seed = Date.now() % 100_000;
    const r = rng(seed);
    const ws = h.workspace();
    const queues = ['RBA', 'RBB'].map((key) => queueHistory(ws.id, key, r.int(0, 2), start));
    const histories = Array.from({ length: 45 }, () => issueHistory(r, r.pick(queues).states[0]!.queue, [newId(), newId()], r.int(1, 6), start));
    // The snapshot was read at some moment: each aggregate at some revision, or not yet created.
    for (const q of queues) {
      const s = q.states[r.int(0, q.states.length - 1)]!;
      h.issues.queues.set(s.queue.id, s);
    }
    const events = [...queues.flatMap((q) => q.events), ...histories.flatMap((i) => i.events)];
    for (const i of histories) {
      if (r.chance(0.2)) continue;
      const s = i.states[r.int(0, i.states.length - 1)]!;
      h.issues.issues.set(s.issue.id, s);
    }
    // Pages are slow and the first one fails (retried after 1 s), so events arrive before, during and after the rebuild.
    h.issues.setDelay(15);
    h.issues.failNext(1);

    const builder = h.service.keepReplicaBuilt();
    watchers.push(builder);
    const publishing = (async () => {
      for (const chunk of chunks(r.shuffle([...events, ...events.filter(() => r.chance(0.2))]), 8)) {
        await h.publish(chunk);
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
    })();
    await Promise.all([builder.built, publishing]);
    await h.handled(events.map((e) => e.event_id), 1, 30_000);

    expect(await isBuilt()).toBe(true);
    const expected = expectedReplica(
      histories.map((i) => i.states[i.states.length - 1]!),
      queues.map((q) => q.states[q.states.length - 1]!),
    );
    await eventually(async () => expect({ seed, ...(await readReplica(h.schema)) }).toEqual({ seed, ...expected }));
    // Pages of 7, and the failed (first) page was asked for again.
    expect(h.issues.issues.size).toBeGreaterThan(21);
    expect(h.issues.calls.filter((c) => c.startsWith('/internal/snapshot/issues'))).toHaveLength(Math.ceil(h.issues.issues.size / 7));
    expect(h.issues.calls.filter((c) => c.startsWith('/internal/snapshot/queues?after_id=0&'))).toHaveLength(2);
    expect(h.logs.some((l) => l.msg === 'snapshot page failed; retrying')).toBe(true);

    const stats = await h.call('POST', '/api/v1/statistics', { as: ws.admin, body: {} });
    expect(stats.status).toBe(200);
    expect(stats.body.total).toBe(45);
    const newestEvent = Math.max(...events.map((e) => Date.parse(e.occurred_at)));
    expect(Date.parse(stats.body.as_of)).toBeGreaterThanOrEqual(newestEvent);
  }, 45_000);

  test('when the command rebuilds from scratch while the service watches the replica, then rows the source no longer serves are gone, events still apply, and as_of is the snapshot time', async () => {
    const ws = h.workspace();
    const queue = queueState(ws.id, 'SCR');
    const kept = issueState(queue, { title: 'Kept' });
    const stray = issueState(queue, { title: 'Stray' });
    await h.seed({ queues: [queue], issues: [stray] });
    h.issues.queues.clear();
    h.issues.issues.clear();
    h.issues.queues.set(queue.id, { revision: 1, queue });
    h.issues.issues.set(kept.id, { revision: 1, issue: kept, comments: [{ id: newId(), body: 'from the snapshot' }] });
    h.issues.setDelay(0);

    const before = Date.now();
    const result = await runRebuildCommand([]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout.trim().split('\n').pop()!)).toMatchObject({ completed: true, queues: 1, issues: 1, comments: 1 });

    const replica = await readReplica(h.schema);
    expect(Object.values(replica.issues).map((i: any) => i.issue.title)).toEqual(['Kept']);
    expect(Object.values(replica.comments)).toEqual([{ issueId: kept.id, body: 'from the snapshot' }]);
    const stats = await h.call('POST', '/api/v1/statistics', { as: ws.admin, body: {} });
    expect(stats.body).toMatchObject({ total: 1 });
    expect(Date.parse(stats.body.as_of)).toBeGreaterThanOrEqual(before - 1000);

    const renamed = event('issue.updated', ws.id, kept.id, 2, { issue: { ...kept, title: 'Renamed', version: 2 }, changes: [] });
    await h.publish([renamed]);
    await h.handled([renamed.event_id]);
    expect((await readReplica(h.schema)).issues[kept.id].issue.title).toBe('Renamed');
  }, 30_000);

  test('when a rebuild from scratch died halfway, then the watching service builds the replica again', async () => {
    const ws = h.workspace();
    const queue = queueState(ws.id, 'DIE');
    h.issues.queues.set(queue.id, { revision: 1, queue });
    await h.service.replica.reset();
    expect((await h.call('GET', '/api/v1/dashboards', { as: ws.admin })).status).toBe(503);
    await eventually(async () => expect((await h.call('GET', '/api/v1/dashboards', { as: ws.admin })).status).toBe(200), 10_000);
    expect(Object.keys((await readReplica(h.schema)).queues)).toContain(String(queue.id));
  }, 20_000);

  test('when the command is given an unknown argument, then it exits 64 with the usage', async () => {
    const result = await runRebuildCommand(['--nope']);
    expect(result.code).toBe(64);
    expect(result.stderr).toMatch(/usage: rebuild \[--keep\]/);
  }, 30_000);

  test('while one process holds the rebuild lock, another cannot take it', async () => {
    const config = { url: h.schema.databaseUrl, schema: h.schema.schema };
    const [first, second] = [rebuildLock(config), rebuildLock(config)];
    expect(await first.tryAcquire()).toBe(true);
    expect(await second.tryAcquire()).toBe(false);
    await first.release();
    expect(await second.tryAcquire()).toBe(true);
    await second.release();
  });
});

function chunks<T>(items: T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, i * size + size));
}

function runRebuildCommand(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/rebuild.ts', ...args], {
      cwd: path.join(__dirname, '..'),
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        DATABASE_URL: h.schema.databaseUrl,
        DATABASE_SCHEMA: h.schema.schema,
        ISSUES_URL: h.issues.url,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
