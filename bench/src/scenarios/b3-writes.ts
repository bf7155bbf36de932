/**
 * B3, writes through the gateway (POST /issues with and without an Idempotency-Key, a
 * versioned PATCH, a comment, a worklog) against pgbench running the same transactions.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { cpuTally } from '../cpu';
import { startFloorChain } from '../floors';
import { someIssues, WRITE_QUEUES, writeQueueIssueKeys } from '../issue-picks';
import { CPU_METRIC, EXPLAINS } from '../rows';
import { say, type Bench } from '../run';
import { SCHEMAS } from '../seed';
import { median, percentile } from '../stats';
import { load } from '../system';

const execFileP = promisify(execFile);

/** pgbench running `script` from `clients` connections: its rate, mean and p99 latency (from its per-transaction log). */
async function pgbench(bench: Bench, script: string, clients: number, seconds: number): Promise<{ tps: number; latencyMs: number; p99Ms: number; transactions: number }> {
  const file = `/tmp/bench-pgbench-${process.pid}.sql`;
  const logPrefix = `/tmp/bench-pgbench-log-${process.pid}`;
  const logs = () => fs.readdirSync('/tmp').filter((name) => name.startsWith(path.basename(logPrefix))).map((name) => path.join('/tmp', name));
  fs.writeFileSync(file, script);
  try {
    const url = new URL(bench.databaseUrl);
    const { stdout } = await execFileP(
      'pgbench',
      ['-n', '-c', String(clients), '-j', '2', '-T', String(seconds), '-f', file, '--log', `--log-prefix=${logPrefix}`, '-h', url.hostname, '-p', url.port || '5432', '-U', url.username || 'postgres', url.pathname.slice(1)],
      { env: { ...process.env, PGOPTIONS: `-c search_path=${SCHEMAS.issues}`, PGPASSWORD: decodeURIComponent(url.password) }, timeout: (seconds + 60) * 1000 },
    );
    const tps = Number(/tps = ([\d.]+)/.exec(stdout)?.[1]);
    const latencyMs = Number(/latency average = ([\d.]+) ms/.exec(stdout)?.[1]);
    const transactions = Number(/number of transactions actually processed: (\d+)/.exec(stdout)?.[1]);
    // A log line per transaction: client, transaction, latency in µs, script, epoch s, µs.
    const latencies = logs().flatMap((log) => fs.readFileSync(log, 'utf8').trim().split('\n').map((line) => Number(line.split(' ')[2]) / 1000));
    return { tps, latencyMs, p99Ms: percentile(latencies, 99), transactions };
  } finally {
    fs.rmSync(file, { force: true });
    for (const log of logs()) fs.rmSync(log, { force: true });
  }
}

export async function b3(bench: Bench) {
  const { system, cleanups, row } = bench;
  const ws = system.seeded.workspaceId;
  const user = system.seeded.userId;
  const token = { authorization: `Bearer ${system.seeded.token}`, 'content-type': 'application/json' };
  const q = system.queueIds;
  // What the issues service runs for one creation, as one transaction.
  const createSql = `
\\set qi random(${q.length - WRITE_QUEUES + 1}, ${q.length})
BEGIN;
SELECT id, key FROM queues WHERE workspace_id = ${ws} AND id = (SELECT id FROM queues WHERE workspace_id = ${ws} ORDER BY id OFFSET :qi - 1 LIMIT 1);
WITH counter AS (UPDATE queues SET issue_counter = issue_counter + 1 WHERE id = (SELECT id FROM queues WHERE workspace_id = ${ws} ORDER BY id OFFSET :qi - 1 LIMIT 1) RETURNING issue_counter, key, id),
     locked AS (SELECT 1 FROM statuses WHERE id = (SELECT min(id) FROM statuses WHERE queue_id = (SELECT id FROM counter)) FOR NO KEY UPDATE)
  SELECT issue_counter, key, id, (SELECT count(*) FROM locked) AS locked FROM counter \\gset
WITH i AS (INSERT INTO issues (workspace_id, queue_id, number, key, title, status_id, position, created_by, created_at, updated_at)
  VALUES (${ws}, :id, :issue_counter, (SELECT key FROM queues WHERE id = :id) || '-' || :issue_counter, 'pgbench issue', (SELECT min(id) FROM statuses WHERE queue_id = :id),
          (SELECT coalesce(max(position), 0) + 1 FROM issues WHERE status_id = (SELECT min(id) FROM statuses WHERE queue_id = :id)), ${user}, now(), now()) RETURNING id),
     h AS (INSERT INTO issue_history (issue_id, field, actor_id, at) SELECT id, 'created', ${user}, now() FROM i)
  SELECT id AS new_id FROM i \\gset
INSERT INTO outbox_events (event_id, type, routing_key, workspace_id, aggregate_type, aggregate_id, aggregate_revision, payload, published_at)
  VALUES (gen_random_uuid(), 'issue.created', 'tracker.issue.created', ${ws}, 'issue', :new_id, 1, '{"bench":true,"title":"pgbench issue"}', now());
COMMIT;
`;
  // Seeded issues have ids 1 to the count (B3's own creations come after): PATCH the first 100,000 past the first 1,000.
  const [lo, hi] = [system.seeded.issues > 1000 ? 1000 : 1, Math.min(system.seeded.issues, 100_000)];
  const patchSql = `
\\set iid random(${lo}, ${hi})
BEGIN;
SELECT id FROM issues WHERE id = :iid FOR NO KEY UPDATE;
SELECT i.*, s.name, s.category FROM issues i JOIN statuses s ON s.id = i.status_id WHERE i.id = :iid;
UPDATE issues SET title = 'pgbench ' || version, version = version + 1, revision = revision + 1, updated_at = now() WHERE id = :iid;
INSERT INTO issue_history (issue_id, field, "from", "to", actor_id, at) VALUES (:iid, 'title', '"a"', '"b"', ${user}, now());
INSERT INTO outbox_events (event_id, type, routing_key, workspace_id, aggregate_type, aggregate_id, aggregate_revision, payload, published_at)
  VALUES (gen_random_uuid(), 'issue.updated', 'tracker.issue.updated', ${ws}, 'issue', :iid, 1, '{"bench":true,"title":"pgbench"}', now());
COMMIT;
`;
  const bodies = q.slice(-WRITE_QUEUES).map((id) => JSON.stringify({ queue_id: id, title: 'Benchmark issue', description: 'made by B3' }));
  const patchIssues = await someIssues(system, 400, 11);
  const api = {
    create: [] as number[], patch: [] as number[], createP99: [] as number[], patchP99: [] as number[], keyed: [] as number[], keyedP99: [] as number[],
    comment: [] as number[], commentP99: [] as number[], worklog: [] as number[], worklogP99: [] as number[],
  };
  const sql = { create: [] as number[], patch: [] as number[], createP99: [] as number[], patchP99: [] as number[] };
  // The floor (floor-server.ts create behind its proxy): the creation's round trips and
  // statements through two bare node:http hops, with none of the project's handling and no
  // event pipeline behind it (its outbox row is written as published, as pgbench's is).
  const floor = await startFloorChain(system, 'create', [bench.databaseUrl, SCHEMAS.issues, system.env.REDIS_URL!, String(ws), String(user)], cleanups);
  const floorCreate = { create: [] as number[], createP99: [] as number[] };
  // CPU per operation of every process (services, Postgres, Redis, broker, load generator).
  const cpu = cpuTally(bench.cpuScope);
  for (let run = 0; run < bench.runs; run++) {
    const created = await cpu.measure('create', () => load({ kind: 'throughput', url: `${system.gateway.url}/api/v1/issues`, method: 'POST', headers: token, bodies, connections: 20, durationSeconds: bench.seconds }), (r) => r.total);
    api.create.push(created.requestsPerSecond);
    api.createP99.push(created.p99);
    if ((created.statusCodes['201'] ?? 0) !== created.total) say(`B3 POST: ${JSON.stringify(created.statusCodes)} errors ${created.errors}`);
    // The same creation under a new Idempotency-Key each time (the typed client's default): the key's claim and stored answer.
    const keyed = await cpu.measure(
      'createKeyed',
      () => load({ kind: 'throughput', url: `${system.gateway.url}/api/v1/issues`, method: 'POST', headers: token, bodies, idempotencyKeys: true, connections: 20, durationSeconds: bench.seconds }),
      (r) => r.total,
    );
    api.keyed.push(keyed.requestsPerSecond);
    api.keyedP99.push(keyed.p99);
    if ((keyed.statusCodes['201'] ?? 0) !== keyed.total) say(`B3 POST with a key: ${JSON.stringify(keyed.statusCodes)} errors ${keyed.errors}`);
    const fresh = await system.db.query(`SELECT key, version FROM "${SCHEMAS.issues}".issues WHERE id = ANY($1::int[]) ORDER BY id`, [patchIssues.map((i) => i.id)]);
    const patched = await cpu.measure('patch', () => load({
      kind: 'throughput',
      url: `${system.gateway.url}/api/v1/issues/{key}`,
      method: 'PATCH',
      headers: token,
      keys: fresh.rows.map((r) => r.key),
      versions: fresh.rows.map((r) => r.version),
      // The title names the version it replaces: every PATCH writes, as pgbench's does.
      body: `{"title":"Benchmark edit ${run}.{version}","version":"{version}"}`,
      connections: 20,
      durationSeconds: bench.seconds,
    }), (r) => r.total);
    api.patch.push(patched.requestsPerSecond);
    api.patchP99.push(patched.p99);
    if ((patched.statusCodes['200'] ?? 0) !== patched.total) say(`B3 PATCH: ${JSON.stringify(patched.statusCodes)} errors ${patched.errors}`);
    // A comment and a worklog, each on issues of the write queues picked afresh every run
    // (the issues B1, B4 and B5 read keep their size; no issue nears its 5,000 comments).
    for (const [kind, path, body] of [
      ['comment', 'comments', '{"body":"Benchmark comment"}'],
      ['worklog', 'worklogs', '{"minutes":15,"description":"Benchmark work"}'],
    ] as const) {
      const keys = await writeQueueIssueKeys(system, 400);
      const added = await cpu.measure(kind, () => load({ kind: 'throughput', url: `${system.gateway.url}/api/v1/issues/{key}/${path}`, method: 'POST', headers: token, keys, body, connections: 20, durationSeconds: bench.seconds }), (r) => r.total);
      api[kind].push(added.requestsPerSecond);
      api[`${kind}P99`].push(added.p99);
      if ((added.statusCodes['201'] ?? 0) !== added.total) say(`B3 ${kind}: ${JSON.stringify(added.statusCodes)} errors ${added.errors}`);
    }
    const floorCreated = await cpu.measure(
      'floorCreate',
      () => load({ kind: 'throughput', url: `${floor.proxy}/api/v1/issues`, method: 'POST', headers: { 'content-type': 'application/json' }, bodies, connections: 20, durationSeconds: bench.seconds }),
      (r) => r.total,
    );
    floorCreate.create.push(floorCreated.requestsPerSecond);
    floorCreate.createP99.push(floorCreated.p99);
    if ((floorCreated.statusCodes['201'] ?? 0) !== floorCreated.total) say(`B3 floor POST: ${JSON.stringify(floorCreated.statusCodes)} errors ${floorCreated.errors}`);
    const sqlCreate = await cpu.measure('sqlCreate', () => pgbench(bench, createSql, 20, bench.seconds), (r) => r.transactions);
    sql.create.push(sqlCreate.tps);
    sql.createP99.push(sqlCreate.p99Ms);
    const sqlPatch = await cpu.measure('sqlPatch', () => pgbench(bench, patchSql, 20, bench.seconds), (r) => r.transactions);
    sql.patch.push(sqlPatch.tps);
    sql.patchP99.push(sqlPatch.p99Ms);
    say(`B3 run ${run + 1}: POST ${api.create.at(-1)!.toFixed(0)} vs ${sql.create.at(-1)!.toFixed(0)} tps; PATCH ${api.patch.at(-1)!.toFixed(0)} vs ${sql.patch.at(-1)!.toFixed(0)} tps`);
  }
  row({ scenario: 'B3 POST /issues', metric: 'req/s (20 conn.)', runs: api.create, ceilingName: 'pgbench same tx', ceiling: median(sql.create), target: '≥ 0.5×', met: (_v, r) => r! >= 0.5 });
  // The ceiling: Postgres alone running the same transactions from as many connections, as fast as it can.
  row({ scenario: 'B3 POST /issues', metric: 'p99 ms (20 conn.)', runs: api.createP99, ceilingName: 'pgbench same tx, 20 clients, p99 ms', ceiling: median(sql.createP99), ratio: null, target: '≤ 50 ms', met: (v) => v <= 50 });
  row({ scenario: 'B3 POST /issues, floor: node:http proxy and service, Redis, the statements', metric: 'req/s (20 conn.)', runs: floorCreate.create, ceilingName: 'pgbench same tx', ceiling: median(sql.create), target: EXPLAINS, met: () => null });
  row({ scenario: 'B3 POST /issues, floor: node:http proxy and service, Redis, the statements', metric: 'p99 ms (20 conn.)', runs: floorCreate.createP99, ceilingName: 'pgbench same tx, 20 clients, p99 ms', ceiling: median(sql.createP99), ratio: null, target: EXPLAINS, met: () => null });
  row({ scenario: 'B3 POST /issues, Idempotency-Key', metric: 'req/s (20 conn.)', runs: api.keyed, ceilingName: 'POST without a key', ceiling: median(api.create), target: '≥ 0.8×', met: (_v, r) => r! >= 0.8 });
  row({ scenario: 'B3 POST /issues, Idempotency-Key', metric: 'p99 ms (20 conn.)', runs: api.keyedP99, ceilingName: '', ceiling: null, target: '≤ 50 ms', met: (v) => v <= 50 });
  row({ scenario: 'B3 PATCH versioned', metric: 'req/s (20 conn.)', runs: api.patch, ceilingName: 'pgbench same tx', ceiling: median(sql.patch), target: '≥ 0.4×', met: (_v, r) => r! >= 0.4 });
  row({ scenario: 'B3 PATCH versioned', metric: 'p99 ms (20 conn.)', runs: api.patchP99, ceilingName: 'pgbench same tx, 20 clients, p99 ms', ceiling: median(sql.patchP99), ratio: null, target: '≤ 50 ms', met: (v) => v <= 50 });
  for (const [kind, scenario] of [['comment', 'B3 POST comment'], ['worklog', 'B3 POST worklog']] as const) {
    row({ scenario, metric: 'req/s (20 conn.)', runs: api[kind], ceilingName: '', ceiling: null, target: '(the rate of the p99 below)', met: () => null });
    row({ scenario, metric: 'p99 ms (20 conn.)', runs: api[`${kind}P99`], ceilingName: '', ceiling: null, target: '≤ 50 ms', met: (v) => v <= 50 });
    row({ scenario, metric: CPU_METRIC, runs: cpu.runs(kind), ceilingName: 'PATCH versioned, ms per request', ceiling: median(cpu.runs('patch')), target: EXPLAINS, met: () => null, note: cpu.note(kind) });
  }
  const cpuNote = (api: string, sql: string) => `${cpu.note(api)}; pgbench: ${cpu.note(sql)}`;
  row({ scenario: 'B3 POST /issues', metric: CPU_METRIC, runs: cpu.runs('create'), ceilingName: 'pgbench, ms per tx', ceiling: median(cpu.runs('sqlCreate')), target: EXPLAINS, met: () => null, note: cpuNote('create', 'sqlCreate') });
  row({ scenario: 'B3 POST /issues, floor: node:http proxy and service, Redis, the statements', metric: CPU_METRIC, runs: cpu.runs('floorCreate'), ceilingName: 'pgbench, ms per tx', ceiling: median(cpu.runs('sqlCreate')), target: EXPLAINS, met: () => null, note: cpu.note('floorCreate') });
  row({ scenario: 'B3 POST /issues, Idempotency-Key', metric: CPU_METRIC, runs: cpu.runs('createKeyed'), ceilingName: 'POST without a key', ceiling: median(cpu.runs('create')), target: EXPLAINS, met: () => null, note: cpu.note('createKeyed') });
  row({ scenario: 'B3 PATCH versioned', metric: CPU_METRIC, runs: cpu.runs('patch'), ceilingName: 'pgbench, ms per tx', ceiling: median(cpu.runs('sqlPatch')), target: EXPLAINS, met: () => null, note: cpuNote('patch', 'sqlPatch') });
}

