/**
 * `pnpm bench [--quick] [--large] [--only B1,B4]`: every scenario measured together
 * with its ceiling in the same run, several short runs each (interleaved, so machine
 * noise hits both alike), medians and ratios printed and written to
 * bench/results/latest.md. Not a test: nothing here fails a build.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { connect } from 'amqplib';
import { Client } from 'pg';
import type { LoadJob } from './loader';
import { costRatios, heapAfterFullCollections, median, percentile, ratioOf, table, type Row } from './stats';
import { answerProblem } from './checks';
import { SCHEMAS, vacuumDatabase, WORDS } from './seed';
import { admin, buildServices, EVENTS_QUEUE, EXCHANGE, getIssueCall, load, MCP_HEADERS, rssMiB, sessionToken, signIn, startBenchSystem, startHelper, type BenchSystem } from './system';
import { verifyAlone } from './sign-in';
import { LOAD_STEPS, measureWebPage } from './web-page';
import { COST_GROUPS, FOLLOW_INTERVAL_MS, measureWebhooks, PER_ENDPOINT, WEBHOOK_POLL_INTERVAL_MS } from './webhooks';
import { cpuTally } from './cpu';
import { measureStartup, type Build } from './startup';
import { SERVICE_NAMES } from '@tracker/system-tests-support';
import { searchSql } from '@tracker/issues/statements';
import { statisticsSql } from '@tracker/statistics/statements';
import { DashboardInput, toSearchCriteria } from '@tracker/contracts';
import { PRINCIPAL_HEADER } from '@tracker/kit';
import { createTrackerClient, dashboardStatistics } from '@tracker/client';

const execFileP = promisify(execFile);
const args = process.argv.slice(2);
const QUICK = args.includes('--quick');
const LARGE = args.includes('--large');
const ONLY = (args.find((a) => a.startsWith('--only='))?.slice(7) ?? args[args.indexOf('--only') + 1] ?? '')
  .split(',')
  .filter((s) => /^B\d+$/.test(s));
const RUNS = QUICK ? 3 : 5;
const SECONDS = QUICK ? 4 : 10;
/** `--issues N` / `--queues N`: the seeded workspace's size (scale.ts runs several). */
function sizeArg(name: string, fallback: number): number {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(args[at + 1]);
  if (!Number.isInteger(value) || value < 100 || value > 10_000_000) throw new Error(`${name} takes a whole number from 100 to 10,000,000`);
  return value;
}
const ISSUES = sizeArg('--issues', LARGE ? 1_000_000 : 100_000);
const QUEUES = sizeArg('--queues', 100);
// Each size has its own database, seeded once and kept, so switching modes does not reseed.
const DATABASE_NAME =
  QUEUES === 100 && ISSUES === 100_000 ? 'tracker_bench' : QUEUES === 100 && ISSUES === 1_000_000 ? 'tracker_bench_large' : `tracker_bench_${ISSUES}_${QUEUES}q`;
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? `postgresql://postgres@127.0.0.1:5432/${DATABASE_NAME}`;
/** `--rows-json FILE`: the rows also written there (scale.ts reads them). */
const ROWS_JSON = args.includes('--rows-json') ? args[args.indexOf('--rows-json') + 1] : undefined;

/** The processes CPU is counted for: this run's (see cpu.ts), not other runs' on the machine. */
const CPU_SCOPE = { parentPid: process.pid, database: decodeURIComponent(new URL(DATABASE_URL).pathname.slice(1)) };

const say = (text: string) => process.stderr.write(`[bench] ${text}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const wants = (s: string) => ONLY.length === 0 || ONLY.includes(s);
const rows: Row[] = [];

function row(r: Omit<Row, 'value' | 'ratio' | 'met'> & { value?: number; ratio?: number | null; met: (value: number, ratio: number | null) => boolean | null }) {
  const value = r.value ?? median(r.runs);
  const ratio = r.ratio !== undefined ? r.ratio : r.ceiling === null ? null : ratioOf(value, r.ceiling);
  const done: Row = { ...r, value, ratio, met: r.met(value, ratio) };
  rows.push(done);
  say(`${done.scenario} ${done.metric}: ${value.toFixed(2)}${done.ceiling !== null ? ` vs ${done.ceiling.toFixed(2)}` : ''} ${done.met === false ? 'MISSED' : ''}`);
}

const CPU_METRIC = 'CPU ms per request, all processes';
const SERVING_CPU_METRIC = 'CPU ms per request, all but the load generator';
const EXPLAINS = '(explains the ratio)';

async function main() {
  const started = Date.now();
  const options = {
    databaseUrl: DATABASE_URL,
    redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/0',
    amqpUrl: process.env.BENCH_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
    issues: ISSUES,
    queues: QUEUES,
  };
  say(`mode: ${QUICK ? 'quick' : 'full'}${LARGE ? ', large' : ''}; ${RUNS} runs of ${SECONDS} s per figure`);
  buildServices();
  const system = await startBenchSystem(options);
  const postgresVersion = `PostgreSQL ${(await system.db.query('SHOW server_version')).rows[0].server_version.split(' ')[0]}`;
  const cleanups: Array<() => Promise<unknown>> = [];
  const onSignal = () => {
    void Promise.all(cleanups.map((c) => c().catch(() => undefined)))
      .then(() => system.stop())
      .finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let b1Max = NaN;
  try {
    if (wants('B0')) await b0(system);
    if (wants('B1') || wants('B2') || wants('B7')) b1Max = await b1b2(system, cleanups);
    if (wants('B3')) await b3(system, cleanups);
    // B3's writes (new issues and comments, updated rows) vacuumed before the reads, as autovacuum would.
    if (wants('B3')) await vacuumDatabase(system.db);
    if (wants('B4')) await b4(system, cleanups);
    if (wants('B5')) await b5(system, cleanups);
    if (wants('B6')) await b6(system);
    if (wants('B7')) await b7(system, b1Max);
    if (wants('B8')) await b8(system, cleanups);
    if (wants('B9')) await b9(system);
    if (wants('B10')) await b10(system);
    if (wants('B11')) await b11(system);
    if (wants('B12')) await b12(system);
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
    await system.stop();
  }
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  const cpu = fs.readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? 'unknown CPU';
  const cores = (fs.readFileSync('/proc/cpuinfo', 'utf8').match(/^processor/gm) ?? []).length;
  const load1 = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const memoryGiB = Math.round(Number(/MemTotal:\s*(\d+)/.exec(fs.readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0) / 1024 / 1024);
  const text = [
    `# Benchmark results`,
    '',
    `${new Date().toISOString()} · ${QUICK ? '--quick' : 'full'}${LARGE ? ' --large' : ''} · ${ISSUES.toLocaleString('en')} issues in ${QUEUES.toLocaleString('en')} queues · ${RUNS} runs × ${SECONDS} s · took ${minutes} min`,
    `Machine: ${cores} × ${cpu}, ${memoryGiB} GiB RAM, ${postgresVersion}, Node ${process.version}; load generator, services, Postgres, Redis and RabbitMQ share it; load average at the end ${load1}`,
    '',
    table(rows),
    '',
  ].join('\n');
  process.stdout.write(`\n${text}`);
  const dir = path.join(__dirname, '../results');
  fs.mkdirSync(dir, { recursive: true });
  // A run of scale.ts is one column of its table, not the latest results.
  if (!ROWS_JSON) fs.writeFileSync(path.join(dir, 'latest.md'), text);
  fs.writeFileSync(path.join(dir, `run-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(rows, null, 2));
  if (ROWS_JSON) fs.writeFileSync(ROWS_JSON, JSON.stringify(rows, null, 2));
}

/** Issue keys spread over the workspace, with their current versions. */
async function someIssues(system: BenchSystem, count: number, offset = 0): Promise<Array<{ id: number; key: string; version: number }>> {
  const rows = await system.db.query(
    `SELECT id, key, version FROM "${SCHEMAS.issues}".issues WHERE workspace_id = $1 AND id % 97 = $3 ORDER BY id LIMIT $2`,
    [system.seeded.workspaceId, count, offset % 97],
  );
  return rows.rows;
}

/** Keys of random issues in the queues B3 writes to (the last WRITE_QUEUES), a new pick per call. */
async function writeQueueIssueKeys(system: BenchSystem, count: number): Promise<string[]> {
  const rows = await system.db.query(
    `SELECT key FROM "${SCHEMAS.issues}".issues WHERE workspace_id = $1 AND queue_id = ANY($2::int[]) ORDER BY random() LIMIT $3`,
    [system.seeded.workspaceId, system.queueIds.slice(-WRITE_QUEUES), count],
  );
  return rows.rows.map((r) => r.key);
}

/**
 * A floor (floor-server.ts `role` with its arguments after the port) behind the bare
 * proxy (or `proxyRole`), as a service sits behind the gateway: both URLs, stopped with the run.
 */
async function startFloorChain(
  system: BenchSystem,
  role: string,
  args: string[],
  cleanups: Array<() => Promise<unknown>>,
  proxyRole = 'proxy',
): Promise<{ service: string; proxy: string }> {
  const service = await startFloorServer(role, args, cleanups);
  return { service, proxy: await startFloorProxy(system, proxyRole, service, cleanups) };
}

/** A floor server (floor-server.ts `role`) on a free port: its URL, stopped with the run. */
async function startFloorServer(role: string, args: string[], cleanups: Array<() => Promise<unknown>>): Promise<string> {
  const { freePort } = await import('@tracker/testing');
  const port = await freePort();
  const server = await startHelper('floor-server.ts', [role, String(port), ...args]);
  cleanups.push(async () => server.kill('SIGTERM'));
  return `http://127.0.0.1:${port}`;
}

/** A floor proxy (floor-server.ts `proxy` or `express-proxy`) in front of `upstream`: its URL, stopped with the run. */
function startFloorProxy(system: BenchSystem, role: string, upstream: string, cleanups: Array<() => Promise<unknown>>): Promise<string> {
  return startFloorServer(role, [upstream, system.env.REDIS_URL!], cleanups);
}

// ---------------------------------------------------------------------------- B0
/**
 * Production builds: each service started once more beside the running system, compiled
 * (what `pnpm start` and the images run) and through tsx (development), in turn; the time
 * from spawn to its first ready /readyz and its RSS after 3 s idle.
 */
async function b0(system: BenchSystem) {
  for (const name of SERVICE_NAMES) {
    const samples: Record<Build, { readyMs: number[]; rss: number[] }> = { compiled: { readyMs: [], rss: [] }, tsx: { readyMs: [], rss: [] } };
    for (let run = 0; run < RUNS; run++) {
      for (const build of (run % 2 ? ['tsx', 'compiled'] : ['compiled', 'tsx']) as Build[]) {
        const sample = await measureStartup(name, system.envs[name], build);
        samples[build].readyMs.push(sample.readyMs);
        samples[build].rss.push(sample.idleRssMiB);
      }
    }
    say(`B0 ${name}: ready ${median(samples.compiled.readyMs).toFixed(0)} ms compiled vs ${median(samples.tsx.readyMs).toFixed(0)} ms tsx`);
    const scenario = `B0 ${name}, compiled`;
    row({ scenario, metric: 'start-up to /readyz, ms', runs: samples.compiled.readyMs, ceilingName: 'through tsx', ceiling: median(samples.tsx.readyMs), target: 'below tsx', met: (_v, r) => r! < 1 });
    row({ scenario, metric: 'idle RSS MiB', runs: samples.compiled.rss, ceilingName: 'through tsx', ceiling: median(samples.tsx.rss), target: 'below tsx', met: (_v, r) => r! < 1 });
  }
}

// ---------------------------------------------------------------------------- B1, B2
async function b1b2(system: BenchSystem, cleanups: Array<() => Promise<unknown>>): Promise<number> {
  const [issue] = await someIssues(system, 1, 5);
  const path = `/api/v1/issues/${issue!.key}`;
  const direct = await fetch(`${system.issues.url}${path}`, { headers: { [PRINCIPAL_HEADER]: system.ticket('issues', 'GET', path) } });
  const bytes = Buffer.from(await direct.arrayBuffer());
  if (direct.status !== 200) throw new Error(`direct GET answered ${direct.status}: ${bytes.toString()}`);
  const file = path.replace(/\//g, '_');
  const bodyFile = `/tmp/bench-body${file}.json`;
  fs.writeFileSync(bodyFile, bytes);
  const { freePort } = await import('@tracker/testing');
  const barePort = await freePort();
  const bare = await startHelper('bare-server.ts', [String(barePort), bodyFile]);
  cleanups.push(async () => {
    bare.kill('SIGTERM');
    fs.rmSync(bodyFile, { force: true });
  });
  // The floor (floor-server.ts): the same round trips with none of the project's handling.
  const floorArgs = [bodyFile, DATABASE_URL, SCHEMAS.issues, system.env.REDIS_URL!, String(system.seeded.workspaceId), issue!.key];
  const floor = await startFloorChain(system, 'service', floorArgs, cleanups);
  // The frameworks' floor: the same round trips through express and http-proxy-middleware.
  const frameworks = await startFloorChain(system, 'express-service', floorArgs, cleanups, 'express-proxy');
  // Between the two: the express service inside the kit's layers, its route only reading the issue.
  const kitService = await startFloorServer('kit-service', floorArgs, cleanups);
  const token = { authorization: `Bearer ${system.seeded.token}` };
  // B2: the gateway's whole authentication (token hash, one Redis round trip for the signed
  // cached principal and the rate-limit counter, its check) is the difference between a
  // request it authenticates and then answers 404 (a path no service owns: no upstream hop)
  // and the same request refused before any lookup (401: a token of the same length that
  // is not well-formed). Same connection, same size of request and answer, no service.
  const unrouted = `${system.gateway.url}/api/v1/bench-no-such-route`;
  const malformed = { authorization: `Bearer ${'-'.repeat(system.seeded.token.length)}` };
  // The same with a signed-in page's token (POST /auth/token, the seeded admin's session):
  // the gateway authenticates it as it does a personal token. It lives 15 minutes, so each
  // run fetches a new one; the first request of a run fills the cache, as for a new page.
  const session = wants('B2') ? await signIn(system) : '';
  let pageToken = '';
  const targets: Record<string, () => Pick<LoadJob, 'url' | 'headers' | 'ticket'> & { expect: string }> = {
    bare: () => ({ url: `http://127.0.0.1:${barePort}${path}`, headers: {}, expect: '200' }),
    floor: () => ({ url: `${floor.service}${path}`, headers: {}, expect: '200' }),
    floorProxy: () => ({ url: `${floor.proxy}${path}`, headers: {}, expect: '200' }),
    express: () => ({ url: `${frameworks.service}${path}`, headers: {}, expect: '200' }),
    expressProxy: () => ({ url: `${frameworks.proxy}${path}`, headers: {}, expect: '200' }),
    kit: () => ({ url: `${kitService}${path}`, headers: {}, ticket: { audience: 'issues', user: system.principal }, expect: '200' }),
    direct: () => ({ url: `${system.issues.url}${path}`, headers: {}, ticket: { audience: 'issues', user: system.principal }, expect: '200' }),
    gateway: () => ({ url: `${system.gateway.url}${path}`, headers: token, expect: '200' }),
    ...(wants('B2') && {
      authenticated: () => ({ url: unrouted, headers: token, expect: '404' }),
      sessionAuthenticated: () => ({ url: unrouted, headers: { authorization: `Bearer ${pageToken}` }, expect: '404' }),
      refused: () => ({ url: unrouted, headers: malformed, expect: '401' }),
    }),
  };
  const rps: Record<string, number[]> = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
  const cpu = cpuTally(CPU_SCOPE);
  const p50: Record<'direct' | 'gateway', number[]> = { direct: [], gateway: [] };
  for (let run = 0; run < RUNS; run++) {
    if (session) {
      pageToken = await sessionToken(system, session);
      if (pageToken.length !== system.seeded.token.length) say(`B2: the session token has ${pageToken.length} characters, the personal token ${system.seeded.token.length}`);
    }
    for (const name of Object.keys(targets)) {
      const { expect, ...t } = targets[name]!();
      const result = await cpu.measure(name, () => load({ kind: 'throughput', ...t, connections: 10, durationSeconds: SECONDS }), (r) => r.total);
      if (result.statusCodes[expect] !== result.total) say(`B1/B2 ${name}: not all ${expect}: ${JSON.stringify(result.statusCodes)}`);
      rps[name]!.push(result.requestsPerSecond);
    }
    // The hop: one client at a time, so queueing does not hide it.
    for (const name of ['direct', 'gateway'] as const) {
      const { expect: _expect, ...t } = targets[name]!();
      const result = await load({ kind: 'latency', ...t, connections: 1, durationSeconds: Math.max(2, SECONDS / 2) });
      p50[name].push(result.p50);
    }
    const b2 = rps.authenticated ? `; B2: authenticated 404 ${rps.authenticated.at(-1)!.toFixed(0)}, session token 404 ${rps.sessionAuthenticated!.at(-1)!.toFixed(0)}, refused 401 ${rps.refused!.at(-1)!.toFixed(0)} req/s` : '';
    say(`B1 run ${run + 1}: bare ${rps.bare!.at(-1)!.toFixed(0)}, direct ${rps.direct!.at(-1)!.toFixed(0)}, gateway ${rps.gateway!.at(-1)!.toFixed(0)} req/s${b2}`);
  }
  const bareMed = median(rps.bare!);
  const directMed = median(rps.direct!);
  const gatewayMed = median(rps.gateway!);
  row({ scenario: 'B1 GET issue, service direct', metric: 'req/s (10 conn.)', runs: rps.direct!, ceilingName: 'bare node:http', ceiling: bareMed, target: '≥ 0.45×', met: (_v, r) => r! >= 0.45 });
  row({ scenario: 'B1 GET issue, via gateway', metric: 'req/s (10 conn.)', runs: rps.gateway!, ceilingName: 'service direct', ceiling: directMed, target: '≥ 0.65×', met: (_v, r) => r! >= 0.65 });
  row({
    scenario: 'B1 floor: node:http proxy, then node:http service',
    metric: 'req/s (10 conn.)',
    runs: rps.floorProxy!,
    ceilingName: 'B1 via gateway',
    ceiling: gatewayMed,
    target: EXPLAINS,
    met: () => null,
    note: `the service alone: ${rps.floor!.map((r) => r.toFixed(0)).join(' / ')}`,
  });
  const hops = added(p50.gateway, p50.direct);
  row({ scenario: 'B1 gateway hop', metric: 'added p50 ms (1 conn.)', runs: hops, ceilingName: 'service direct p50 ms', ceiling: median(p50.direct), ratio: null, target: '≤ 1 ms', met: (v) => v <= 1 });
  for (const [name, ceiling] of [['direct', 'bare'], ['gateway', 'direct']] as const) {
    const scenario = `B1 GET issue, ${name === 'direct' ? 'service direct' : 'via gateway'}`;
    const note = `${cpu.note(name)}; ${ceiling}: ${cpu.note(ceiling)}`;
    row({ scenario, metric: CPU_METRIC, runs: cpu.runs(name), ceilingName: `${ceiling}, ms per request`, ceiling: median(cpu.runs(ceiling)), target: EXPLAINS, met: () => null, note });
  }
  // The targets count what serving costs (the load generator's share left out), beside the
  // floor: the same Redis and Postgres round trips and HTTP hops with no project code.
  for (const [name, floorName, limit] of [['direct', 'floor', 0.4], ['gateway', 'floorProxy', 0.7]] as const) {
    const scenario = `B1 GET issue, ${name === 'direct' ? 'service direct' : 'via gateway'}`;
    const note = `${cpu.note(name)}; floor: ${cpu.note(floorName)}`;
    const floorLabel = name === 'direct' ? 'floor: node:http, Redis SET NX, the statement' : 'floor: + node:http proxy, Redis pipeline';
    row({ scenario, metric: SERVING_CPU_METRIC, runs: cpu.servingRuns(name), ceilingName: floorLabel, ceiling: median(cpu.servingRuns(floorName)), target: `≤ ${limit} ms`, met: (v) => v <= limit, note });
  }
  // The same round trips through express (and http-proxy-middleware for the hop), with none
  // of the project's layers: what of the gap to the floor above is the frameworks'.
  for (const [name, floorName] of [['express', 'floor'], ['expressProxy', 'floorProxy']] as const) {
    const scenario = name === 'express' ? 'B1 floor: express, Redis SET NX, the statement' : 'B1 floor: + express with http-proxy-middleware, Redis pipeline';
    const floorLabel = name === 'express' ? 'the node:http floor' : 'the node:http floor with its proxy';
    const note = `${cpu.note(name)}; node:http: ${cpu.note(floorName)}`;
    row({ scenario, metric: SERVING_CPU_METRIC, runs: cpu.servingRuns(name), ceilingName: floorLabel, ceiling: median(cpu.servingRuns(floorName)), target: EXPLAINS, met: () => null, note });
  }
  // The kit's layers over that express service, and the issues service's route over both.
  row({
    scenario: "B1 floor: + the kit's layers (ticket, request id, metrics, body)",
    metric: SERVING_CPU_METRIC,
    runs: cpu.servingRuns('kit'),
    ceilingName: 'the express floor',
    ceiling: median(cpu.servingRuns('express')),
    target: EXPLAINS,
    met: () => null,
    note: `${cpu.note('kit')}; express: ${cpu.note('express')}; the issues service direct: ${median(cpu.servingRuns('direct')).toFixed(2)} ms`,
  });
  if (rps.authenticated) {
    // Per run: CPU of an authenticated request minus CPU of one refused before any lookup.
    const authCpu = cpu.runs('authenticated').map((ms, i) => ms - cpu.runs('refused')[i]!);
    const note = `authenticated then 404: ${median(cpu.runs('authenticated')).toFixed(2)} ms (${cpu.note('authenticated')}); refused at once (401): ${median(cpu.runs('refused')).toFixed(2)} ms (${cpu.note('refused')})`;
    row({
      scenario: 'B2 authentication cost',
      metric: 'CPU ms per request, all processes',
      runs: authCpu,
      ceilingName: 'B1 via gateway, ms per request',
      ceiling: median(cpu.runs('gateway')),
      // A share of the whole request: ≤ 0.15 is what "≥ 0.85 × the throughput without it" means where CPU bounds throughput.
      target: '≤ 0.15× (≈ gateway ≥ 0.85× without auth)',
      met: (_v, r) => r! <= 0.15,
      note,
    });
    // A signed-in page's token, the same way: its cost against the personal token's above.
    const sessionCpu = cpu.runs('sessionAuthenticated').map((ms, i) => ms - cpu.runs('refused')[i]!);
    row({
      scenario: 'B2 authentication cost, session token',
      metric: 'CPU ms per request, all processes',
      runs: sessionCpu,
      ceilingName: 'B2 authentication cost, personal token',
      ceiling: median(authCpu),
      target: "≈ the personal token's (≤ 1.2×)",
      met: (_v, r) => r! <= 1.2,
      note: `session token then 404: ${median(cpu.runs('sessionAuthenticated')).toFixed(2)} ms (${cpu.note('sessionAuthenticated')})`,
    });
    row({
      scenario: 'B2 authenticated request, no upstream',
      metric: 'req/s (10 conn.)',
      runs: rps.authenticated,
      ceilingName: 'refused at once (401)',
      ceiling: median(rps.refused!),
      target: EXPLAINS,
      met: () => null,
    });
    row({
      scenario: 'B2 authenticated request, session token, no upstream',
      metric: 'req/s (10 conn.)',
      runs: rps.sessionAuthenticated!,
      ceilingName: 'the personal token',
      ceiling: median(rps.authenticated),
      target: EXPLAINS,
      met: () => null,
    });
  }
  return gatewayMed;
}

// ---------------------------------------------------------------------------- B3
/**
 * Creations (API and pgbench alike) go to the last 20 queues only, so the queues B4 and
 * B5 read keep their seeded size however often the suite runs.
 */
const WRITE_QUEUES = 20;

/** pgbench running `script` from `clients` connections: its rate, mean and p99 latency (from its per-transaction log). */
async function pgbench(system: BenchSystem, script: string, clients: number, seconds: number): Promise<{ tps: number; latencyMs: number; p99Ms: number; transactions: number }> {
  const file = `/tmp/bench-pgbench-${process.pid}.sql`;
  const logPrefix = `/tmp/bench-pgbench-log-${process.pid}`;
  const logs = () => fs.readdirSync('/tmp').filter((name) => name.startsWith(path.basename(logPrefix))).map((name) => path.join('/tmp', name));
  fs.writeFileSync(file, script);
  try {
    const url = new URL(DATABASE_URL);
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

async function b3(system: BenchSystem, cleanups: Array<() => Promise<unknown>>) {
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
  const floor = await startFloorChain(system, 'create', [DATABASE_URL, SCHEMAS.issues, system.env.REDIS_URL!, String(ws), String(user)], cleanups);
  const floorCreate = { create: [] as number[], createP99: [] as number[] };
  // CPU per operation of every process (services, Postgres, Redis, broker, load generator).
  const cpu = cpuTally(CPU_SCOPE);
  for (let run = 0; run < RUNS; run++) {
    const created = await cpu.measure('create', () => load({ kind: 'throughput', url: `${system.gateway.url}/api/v1/issues`, method: 'POST', headers: token, bodies, connections: 20, durationSeconds: SECONDS }), (r) => r.total);
    api.create.push(created.requestsPerSecond);
    api.createP99.push(created.p99);
    if ((created.statusCodes['201'] ?? 0) !== created.total) say(`B3 POST: ${JSON.stringify(created.statusCodes)} errors ${created.errors}`);
    // The same creation under a new Idempotency-Key each time (the typed client's default): the key's claim and stored answer.
    const keyed = await cpu.measure(
      'createKeyed',
      () => load({ kind: 'throughput', url: `${system.gateway.url}/api/v1/issues`, method: 'POST', headers: token, bodies, idempotencyKeys: true, connections: 20, durationSeconds: SECONDS }),
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
      durationSeconds: SECONDS,
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
      const added = await cpu.measure(kind, () => load({ kind: 'throughput', url: `${system.gateway.url}/api/v1/issues/{key}/${path}`, method: 'POST', headers: token, keys, body, connections: 20, durationSeconds: SECONDS }), (r) => r.total);
      api[kind].push(added.requestsPerSecond);
      api[`${kind}P99`].push(added.p99);
      if ((added.statusCodes['201'] ?? 0) !== added.total) say(`B3 ${kind}: ${JSON.stringify(added.statusCodes)} errors ${added.errors}`);
    }
    const floorCreated = await cpu.measure(
      'floorCreate',
      () => load({ kind: 'throughput', url: `${floor.proxy}/api/v1/issues`, method: 'POST', headers: { 'content-type': 'application/json' }, bodies, connections: 20, durationSeconds: SECONDS }),
      (r) => r.total,
    );
    floorCreate.create.push(floorCreated.requestsPerSecond);
    floorCreate.createP99.push(floorCreated.p99);
    if ((floorCreated.statusCodes['201'] ?? 0) !== floorCreated.total) say(`B3 floor POST: ${JSON.stringify(floorCreated.statusCodes)} errors ${floorCreated.errors}`);
    const sqlCreate = await cpu.measure('sqlCreate', () => pgbench(system, createSql, 20, SECONDS), (r) => r.transactions);
    sql.create.push(sqlCreate.tps);
    sql.createP99.push(sqlCreate.p99Ms);
    const sqlPatch = await cpu.measure('sqlPatch', () => pgbench(system, patchSql, 20, SECONDS), (r) => r.transactions);
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

// ---------------------------------------------------------------------------- B4
async function explainMs(db: Client, sql: { sql: string; values: unknown[] }): Promise<number> {
  const res = await db.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql.sql}`, sql.values as unknown[]);
  const plan = res.rows[0]['QUERY PLAN'][0];
  return plan['Planning Time'] + plan['Execution Time'];
}

/** How long `request` took, ms. */
async function msOf(request: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await request();
  return performance.now() - started;
}

/** What a hop adds, run by run: the time through it less its service's own time in the same run. */
const added = (via: number[], direct: number[]) => via.map((v, i) => v - direct[i]!);

/** An empty list for each of `keys`. */
const listsFor = <Key extends string>(keys: readonly Key[]) => Object.fromEntries(keys.map((key) => [key, [] as number[]])) as Record<Key, number[]>;

/** A copy of `items` in random order (Fisher-Yates). */
function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/**
 * POSTs of `body`, one at a time over one keep-alive socket (node:http), the answer's bytes
 * kept undecoded: the client's own cost stays small beside what it measures, and the same
 * for the API and its floors. An answer other than 200, or none within 60 s, rejects.
 */
function keepAlivePoster(scenario: string, body: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const post = (url: string, headers: Record<string, string>) => () =>
    new Promise<Buffer>((resolve, reject) => {
      const request = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const bytes = Buffer.concat(chunks);
          if (answer.statusCode === 200) resolve(bytes);
          else reject(new Error(`${scenario}: ${url} answered ${answer.statusCode}: ${bytes.toString('utf8', 0, 200)}`));
        });
        answer.on('error', reject);
      });
      request.setTimeout(60_000, () => request.destroy(new Error(`${scenario}: ${url} did not answer within 60 s`)));
      request.on('error', reject);
      request.end(body);
    });
  return { post, close: () => agent.destroy() };
}

/**
 * `kinds` measured one request of each per round, in a new random order each round, one at
 * a time, for `ms` (at least 20 rounds): noise (the OS cache, other processes, the bench's
 * own garbage) hits the API and its ceilings alike, and no kind always follows the same
 * other kind. Each kind's times, ms.
 */
async function takingTurns<Kind extends string>(kinds: Record<Kind, () => Promise<number>>, ms: number): Promise<Record<Kind, number[]>> {
  const order = Object.keys(kinds) as Kind[];
  const times = listsFor(order);
  const until = Date.now() + ms;
  for (let round = 0; Date.now() < until || round < 20; round++) {
    for (const kind of shuffled(order)) times[kind].push(await kinds[kind]());
  }
  return times;
}

/** A Prisma.Sql as pg takes it: `.text` has the $1.. placeholders (`.sql` has MySQL's `?`). */
const asPg = (s: unknown) => ({ sql: (s as { text: string }).text, values: (s as { values: unknown[] }).values });

async function b4(system: BenchSystem, cleanups: Array<() => Promise<unknown>>) {
  const filters = { search: WORDS[17]!, priority: 'high', category: 'open' } as const;
  // The floor (floor-server.ts search behind its proxy): the search's round trips, statement
  // and JSON through two bare node:http hops, with none of the project's handling.
  const floor = await startFloorChain(system, 'search', [DATABASE_URL, SCHEMAS.issues, system.env.REDIS_URL!, String(system.seeded.workspaceId), String(system.seeded.userId)], cleanups);
  const criteria = toSearchCriteria(filters as never, { workspaceId: system.seeded.workspaceId, userId: system.seeded.userId }, null, new Date());
  // Every statement and request bounded: a hung service or query fails the run, never stalls it.
  const db = new Client({ connectionString: DATABASE_URL, statement_timeout: 60_000 });
  const searchPath = '/api/v1/issues/search';
  const body = JSON.stringify(filters);
  const { post, close } = keepAlivePoster('B4', body);
  const query = asPg(searchSql(criteria));
  // What each kind of request measures: the API through the gateway, the service called
  // directly, the floor chain, EXPLAIN ANALYZE (leaves out sending the rows) and the rows
  // fetched by node-postgres as the service fetches them (Postgres's output, the transfer,
  // the driver's parsing).
  const api = post(`${system.gateway.url}${searchPath}`, { authorization: `Bearer ${system.seeded.token}` });
  const floored = post(`${floor.proxy}${searchPath}`, {});
  // Each kind answers its ms (EXPLAIN: Postgres's own planning and execution).
  const kinds = {
    api: () => msOf(api),
    // The ticket is made before the clock starts: the gateway's work, not the service's.
    direct: () => msOf(post(`${system.issues.url}${searchPath}`, { [PRINCIPAL_HEADER]: system.ticket('issues', 'POST', searchPath, body) })),
    floor: () => msOf(floored),
    sql: () => explainMs(db, query),
    fetched: () => msOf(() => db.query(query.sql, query.values)),
  };
  type Kind = keyof typeof kinds;
  const order = Object.keys(kinds) as Kind[];
  const [p95s, p50s] = [listsFor(order), listsFor(order)];
  let matched = 0;
  try {
    await db.connect();
    await db.query(`SET search_path TO ${SCHEMAS.issues}`);
    // Before any load: the API and the floor answer the same issues, or the floor is not one.
    const ids = async (answer: Promise<Buffer>) => (JSON.parse((await answer).toString('utf8')) as Array<{ id: number }>).map((i) => i.id);
    const [apiIds, floorIds] = [await ids(api()), await ids(floored())];
    if (apiIds.join() !== floorIds.join()) throw new Error('B4: the floor found other issues than the API');
    matched = apiIds.length;
    for (let run = 0; run < RUNS; run++) {
      const times = await takingTurns(kinds, SECONDS * 2500);
      for (const kind of order) {
        p95s[kind].push(percentile(times[kind], 95));
        p50s[kind].push(percentile(times[kind], 50));
      }
      say(`B4 run ${run + 1}: API p95 ${p95s.api.at(-1)!.toFixed(1)} ms, SQL p95 ${p95s.sql.at(-1)!.toFixed(1)} ms (${times.api.length} rounds)`);
    }
  } finally {
    close();
    await db.end().catch(() => undefined);
  }
  const [apiP95, direct, sqlP95, fetchedP95, floorP95] = [p95s.api, p95s.direct, p95s.sql, p95s.fetched, p95s.floor];
  const sql = median(sqlP95);
  row({
    scenario: `B4 search text + 2 filters (${ISSUES / 1000}k)`,
    metric: 'p95 ms (1 conn.)',
    runs: apiP95,
    ceilingName: 'EXPLAIN ANALYZE p95 ms',
    ceiling: sql,
    target: '≤ SQL + 5 ms',
    met: (v) => v <= sql + 5,
    note: `${matched} matches; p50 ms: ${order.map((k) => `${k} ${median(p50s[k]).toFixed(1)}`).join(', ')}`,
  });
  row({ scenario: `B4 search, service direct (${ISSUES / 1000}k)`, metric: 'p95 ms (1 conn.)', runs: direct, ceilingName: 'EXPLAIN ANALYZE p95 ms', ceiling: sql, ratio: null, target: '(locates the gap)', met: () => null });
  row({
    scenario: `B4 search, floor: node:http proxy and service, Redis, the statement (${ISSUES / 1000}k)`,
    metric: 'p95 ms (1 conn.)',
    runs: floorP95,
    ceilingName: 'EXPLAIN ANALYZE p95 ms',
    ceiling: sql,
    ratio: null,
    target: EXPLAINS,
    met: () => null,
    note: `SQL + ${(median(floorP95) - sql).toFixed(1)} ms`,
  });
  row({ scenario: `B4 search, floor: its rows fetched by node-postgres (${ISSUES / 1000}k)`, metric: 'p95 ms (1 conn.)', runs: fetchedP95, ceilingName: 'EXPLAIN ANALYZE p95 ms', ceiling: sql, ratio: null, target: EXPLAINS, met: () => null });
}

// ---------------------------------------------------------------------------- B5
async function b5(system: BenchSystem, cleanups: Array<() => Promise<unknown>>) {
  const q = system.queueIds;
  // 2000 issues: two queues of 1000 (at 100k); widgets vary the filters as dashboards do.
  const perQueue = Math.ceil(system.seeded.issues / q.length);
  const twoThousand = q.slice(0, Math.max(1, Math.round(2000 / perQueue)));
  const widgets = Array.from({ length: 30 }, (_, i) => {
    const filters: Record<string, unknown> = { queue_ids: twoThousand };
    if (i % 3 === 1) filters.priority = ['low', 'normal', 'high', 'critical'][i % 4];
    if (i % 3 === 2) filters.category = ['open', 'progress', 'done'][i % 3];
    if (i % 5 === 4) filters.label = `l${i % 10}`;
    return filters;
  });
  const db = new Client({ connectionString: DATABASE_URL });
  await db.connect();
  await db.query(`SET search_path TO ${SCHEMAS.statistics}`);
  const caller = { workspaceId: system.seeded.workspaceId, userId: system.seeded.userId };
  const sqls = widgets.map((w) => asPg(statisticsSql(toSearchCriteria(w as never, caller, w.queue_ids as number[], new Date()))));
  const dash = { api: [] as number[], fanOut: [] as number[], once: [] as number[], floor: [] as number[], sql: [] as number[] };
  // What a widget's request costs in CPU, process by process, in the dashboard and its floor.
  const cpu = cpuTally(CPU_SCOPE);
  // The floor (floor-server.ts statistics behind its proxy): the same request's round trips
  // and statement with none of the project's handling, through two hops as via the gateway.
  const floor = await startFloorChain(system, 'statistics', [DATABASE_URL, SCHEMAS.statistics, system.env.REDIS_URL!, String(caller.workspaceId), String(caller.userId)], cleanups);
  const floorUrl = `${floor.proxy}/api/v1/statistics`;
  // The same floor service behind the frameworks' hop instead (express with http-proxy-middleware, as B1's).
  const frameworksUrl = `${await startFloorProxy(system, 'express-proxy', floor.service, cleanups)}/api/v1/statistics`;
  // One request (the first widget's), measured as B4's search is: one request of each kind
  // per round, in turn, one connection each: through the gateway, the service called
  // directly (the ticket made before the clock starts), the floor through bare hops, the
  // floor's service behind the frameworks' hop, that service called directly (so each
  // hop is measured against its own service: ours, the bare one, the frameworks'), and the
  // statement run directly.
  const statisticsPath = '/api/v1/statistics';
  const singleBody = JSON.stringify(widgets[0]);
  const { post, close } = keepAlivePoster('B5', singleBody);
  const single = {
    api: () => msOf(post(`${system.gateway.url}${statisticsPath}`, { authorization: `Bearer ${system.seeded.token}` })),
    direct: () => msOf(post(`${system.statistics.url}${statisticsPath}`, { [PRINCIPAL_HEADER]: system.ticket('statistics', 'POST', statisticsPath, singleBody) })),
    floor: () => msOf(post(floorUrl, {})),
    frameworks: () => msOf(post(frameworksUrl, {})),
    floorDirect: () => msOf(post(`${floor.service}${statisticsPath}`, {})),
    sql: () => msOf(() => db.query(sqls[0]!.sql, sqls[0]!.values)),
  };
  const singleKinds = Object.keys(single) as Array<keyof typeof single>;
  const one = listsFor(singleKinds);
  // A client draws a dashboard's widgets at once: the typed client's dashboardStatistics, 6
  // requests at a time; the floor's dashboard is drawn by the same function (its token unused).
  const client = createTrackerClient({ baseUrl: system.gateway.url, token: system.seeded.token });
  const floorClient = createTrackerClient({ baseUrl: floor.proxy, token: system.seeded.token });
  const dashboardWidgets = widgets.map((filters) => ({ filters: filters as never }));
  const floorDashboard = () => dashboardStatistics(floorClient, dashboardWidgets);
  // The same widgets saved as a dashboard, drawn by one request (GET /dashboards/{id}/statistics),
  // where the contract lets them make one: with 5,000 queues, 2000 issues span 100 queues,
  // and 30 widgets naming them pass the ids a dashboard may hold in all.
  const dashboard = { name: 'B5 dashboard', widgets: widgets.map((filters) => ({ type: 'stats' as const, filters: filters as never })) };
  const fits = DashboardInput.safeParse(dashboard);
  const saved = fits.success ? await savedDashboard(client, dashboard) : null;
  if (!fits.success) say(`B5: the widgets make no dashboard (${fits.error.issues[0]?.message}): none drawn in one request at this size`);
  const drawnAtOnce = async (dashboardId: number) => {
    const answer = await client.GET('/api/v1/dashboards/{dashboard_id}/statistics', { params: { path: { dashboard_id: dashboardId } } });
    if (!answer.data) throw new Error(`GET /dashboards/${dashboardId}/statistics answered ${answer.response.status}`);
    return answer.data;
  };
  try {
    // Once each before measuring (an error answer throws); the one request must answer what the widgets' requests do.
    const withoutAsOf = (results: Array<{ as_of: string | null }>) => results.map(({ as_of: _asOf, ...figures }) => figures);
    const oneByOne = await dashboardStatistics(client, dashboardWidgets);
    if (saved !== null && JSON.stringify(withoutAsOf((await drawnAtOnce(saved)).widgets)) !== JSON.stringify(withoutAsOf(oneByOne))) {
      throw new Error('B5: the dashboard drawn in one request differs from its widgets drawn one by one');
    }
    await floorDashboard();
    for (let run = 0; run < RUNS; run++) {
      const times = await takingTurns(single, SECONDS * 2000);
      for (const kind of singleKinds) one[kind].push(percentile(times[kind], 50));
      // The dashboard: its 30 widgets one after another, as one client renders it.
      const dApi: number[] = [];
      const dFanOut: number[] = [];
      const dOnce: number[] = [];
      const dFloor: number[] = [];
      const dSql: number[] = [];
      for (let k = 0; k < (QUICK ? 3 : 5); k++) {
        let t = performance.now();
        await dashboardStatistics(client, dashboardWidgets, { concurrency: 1 });
        dApi.push(performance.now() - t);
        t = performance.now();
        await cpu.measure('dashboard', () => dashboardStatistics(client, dashboardWidgets), () => widgets.length);
        dFanOut.push(performance.now() - t);
        if (saved !== null) {
          t = performance.now();
          await cpu.measure('dashboard, one request', () => drawnAtOnce(saved), () => widgets.length);
          dOnce.push(performance.now() - t);
        }
        t = performance.now();
        await cpu.measure('floor dashboard', floorDashboard, () => widgets.length);
        dFloor.push(performance.now() - t);
        t = performance.now();
        for (const s of sqls) await db.query(s.sql, s.values);
        dSql.push(performance.now() - t);
      }
      dash.api.push(median(dApi));
      dash.fanOut.push(median(dFanOut));
      if (saved !== null) dash.once.push(median(dOnce));
      dash.floor.push(median(dFloor));
      dash.sql.push(median(dSql));
      say(`B5 run ${run + 1}: one ${one.api.at(-1)!.toFixed(1)} (floor ${one.floor.at(-1)!.toFixed(1)}, behind express ${one.frameworks.at(-1)!.toFixed(1)}) vs ${one.sql.at(-1)!.toFixed(1)} ms; dashboard ${dash.once.at(-1)?.toFixed(0) ?? '–'} in one request, ${dash.fanOut.at(-1)!.toFixed(0)} 6 at a time (floor ${dash.floor.at(-1)!.toFixed(0)}, one by one ${dash.api.at(-1)!.toFixed(0)}) vs ${dash.sql.at(-1)!.toFixed(0)} ms`);
    }
  } finally {
    close();
    await db.end();
  }
  row({ scenario: 'B5 statistics, 2000 issues', metric: 'p50 ms', runs: one.api, ceilingName: 'same SQL direct ms', ceiling: median(one.sql), target: '≤ 1.3×', met: (_v, r) => r! <= 1.3 });
  row({ scenario: 'B5 statistics, service direct', metric: 'p50 ms', runs: one.direct, ceilingName: 'same SQL direct ms', ceiling: median(one.sql), target: '(locates the gap)', met: () => null });
  row({ scenario: 'B5 statistics, floor: node:http proxy and service, Redis, the statement', metric: 'p50 ms', runs: one.floor, ceilingName: 'same SQL direct ms', ceiling: median(one.sql), target: EXPLAINS, met: () => null });
  row({ scenario: 'B5 statistics, floor: its service behind express with http-proxy-middleware', metric: 'p50 ms', runs: one.frameworks, ceilingName: 'same SQL direct ms', ceiling: median(one.sql), target: EXPLAINS, met: () => null });
  // The hops, each over its own service called directly in the same rounds.
  const hopNote = (via: number[], direct: number[]) => added(via, direct).map((h) => h.toFixed(2)).join(' / ');
  row({
    scenario: 'B5 statistics, the gateway hop',
    metric: 'added p50 ms (1 conn.)',
    runs: added(one.api, one.direct),
    ceilingName: 'the frameworks\' hop, added p50 ms',
    ceiling: median(added(one.frameworks, one.floorDirect)),
    target: EXPLAINS,
    met: () => null,
    note: `the bare hop ${hopNote(one.floor, one.floorDirect)}; the frameworks' hop ${hopNote(one.frameworks, one.floorDirect)}; the floor's service called directly ${one.floorDirect.map((v) => v.toFixed(2)).join(' / ')} ms`,
  });
  if (saved !== null) row({ scenario: 'B5 dashboard, 30 widgets, one request (GET /dashboards/{id}/statistics)', metric: 'ms per dashboard', runs: dash.once, ceilingName: 'same SQL direct ms, one after another', ceiling: median(dash.sql), target: '≤ 1.3×', met: (_v, r) => r! <= 1.3, note: `CPU ms per widget ${median(cpu.runs('dashboard, one request')).toFixed(2)}: ${cpu.note('dashboard, one request')}` });
  row({ scenario: 'B5 dashboard, 30 widgets, 6 at a time (typed client)', metric: 'ms per dashboard', runs: dash.fanOut, ceilingName: 'same SQL direct ms, one after another', ceiling: median(dash.sql), target: '(a client\'s fan-out of POST /statistics)', met: () => null, note: `CPU ms per widget ${median(cpu.runs('dashboard')).toFixed(2)}: ${cpu.note('dashboard')}` });
  row({ scenario: 'B5 dashboard, floor, 6 at a time', metric: 'ms per dashboard', runs: dash.floor, ceilingName: 'same SQL direct ms, one after another', ceiling: median(dash.sql), target: EXPLAINS, met: () => null, note: `CPU ms per widget ${median(cpu.runs('floor dashboard')).toFixed(2)}: ${cpu.note('floor dashboard')}` });
  row({ scenario: 'B5 dashboard, 30 widgets, one after another', metric: 'ms per dashboard', runs: dash.api, ceilingName: 'same SQL direct ms, one after another', ceiling: median(dash.sql), target: '(as before: a client drawing one widget at a time)', met: () => null });
}

/** The id of the bench workspace's dashboard named as `body` is, saved (or replaced) with its widgets. */
async function savedDashboard(client: ReturnType<typeof createTrackerClient>, body: { name: string; widgets: Array<{ type: 'stats'; filters: never }> }): Promise<number> {
  const listed = await client.GET('/api/v1/dashboards');
  const existing = listed.data?.find((d) => d.name === body.name);
  const answer = existing
    ? await client.PUT('/api/v1/dashboards/{dashboard_id}', { params: { path: { dashboard_id: existing.id } }, body })
    : await client.POST('/api/v1/dashboards', { body });
  if (!answer.data) throw new Error(`saving the ${body.name} answered ${answer.response.status}`);
  return answer.data.id;
}

// ---------------------------------------------------------------------------- B6
async function amqpRoundTrip(url: string, rate: number, seconds: number): Promise<number[]> {
  const publisher = await connect(url);
  const consumer = await connect(url);
  const lags: number[] = [];
  try {
    const pch = await publisher.createConfirmChannel();
    const cch = await consumer.createChannel();
    const { queue } = await cch.assertQueue('', { exclusive: true, autoDelete: true });
    await cch.consume(queue, (msg) => {
      if (!msg) return;
      lags.push(Date.now() - Number(msg.content.toString()));
      cch.ack(msg);
    });
    const total = rate * seconds;
    const startedAt = Date.now();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = startedAt + (i * 1000) / rate;
      if (due > Date.now()) await sleep(due - Date.now());
      pending.push(
        new Promise<void>((resolve, reject) =>
          pch.sendToQueue(queue, Buffer.from(String(Date.now())), { persistent: true }, (err) => (err ? reject(err) : resolve())),
        ),
      );
    }
    await Promise.all(pending);
    const deadline = Date.now() + 10_000;
    while (lags.length < total && Date.now() < deadline) await sleep(20);
  } finally {
    await publisher.close();
    await consumer.close();
  }
  return lags;
}

/** Writes at `rate`/s (PATCH through the gateway); each write's time until the replica shows it. */
async function replicaLag(system: BenchSystem, rate: number, seconds: number, issues: Array<{ id: number; key: string; version: number }>): Promise<{ lags: number[]; lost: number }> {
  const headers = { authorization: `Bearer ${system.seeded.token}`, 'content-type': 'application/json' };
  const pending = new Map<number, { version: number; answeredAt: number }>();
  const lags: number[] = [];
  let writing = true;
  const poller = (async () => {
    while (writing || pending.size > 0) {
      if (pending.size) {
        const ids = [...pending.keys()];
        const seen = await system.db.query(`SELECT id, version FROM "${SCHEMAS.statistics}".issues WHERE id = ANY($1::int[])`, [ids]);
        const now = Date.now();
        for (const r of seen.rows) {
          const p = pending.get(r.id);
          if (p && r.version >= p.version) {
            lags.push(now - p.answeredAt);
            pending.delete(r.id);
          }
        }
        if (!writing && [...pending.values()].every((p) => now - p.answeredAt > 30_000)) break;
      }
      await sleep(5);
    }
  })();
  const total = rate * seconds;
  const startedAt = Date.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = startedAt + (i * 1000) / rate;
    if (due > Date.now()) await sleep(due - Date.now());
    const issue = issues[i % issues.length]!;
    inflight.push(
      (async () => {
        const res = await fetch(`${system.gateway.url}/api/v1/issues/${issue.key}`, { method: 'PATCH', headers, body: JSON.stringify({ title: `Lag ${i}` }) });
        const body = (await res.json()) as { version?: number };
        if (res.status === 200 && body.version) pending.set(issue.id, { version: body.version, answeredAt: Date.now() });
      })().catch(() => undefined),
    );
    // One write per issue in flight: the next write to it waits for the previous answer.
    if (inflight.length >= issues.length) await inflight.shift();
  }
  await Promise.all(inflight);
  writing = false;
  await poller;
  return { lags, lost: pending.size };
}

/** Writes made while the statistics service is away, for B6's backlog drain. */
const BACKLOG_EVENTS = 4000;

async function b6(system: BenchSystem) {
  const rate = 200;
  const seconds = QUICK ? 4 : 10;
  const issues = await someIssues(system, 400, 23);
  const lagP99: number[] = [];
  const amqpP99: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const { lags, lost } = await replicaLag(system, rate, seconds, issues);
    lagP99.push(percentile(lags, 99));
    amqpP99.push(percentile(await amqpRoundTrip(process.env.BENCH_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672', rate, seconds), 99));
    say(`B6 run ${run + 1}: replica lag p99 ${lagP99.at(-1)} ms (${lags.length} writes${lost ? `, ${lost} never seen` : ''}), amqp p99 ${amqpP99.at(-1)} ms`);
  }
  row({ scenario: 'B6 event lag at 200 writes/s', metric: 'p99 ms', runs: lagP99, ceilingName: 'amqplib confirm round trip p99', ceiling: median(amqpP99), ratio: null, target: '≤ 250 ms', met: (v) => v <= 250 });

  // Backlog: the consumer away while writes go on, then how fast it catches up. The rate
  // is counted from the first event seen applied to the last, so the process's start-up
  // (a fast consumer drains much of the backlog before /readyz answers) is not in it.
  const drains: number[] = [];
  for (let run = 0; run < (QUICK ? 1 : 3); run++) {
    await system.restartStatistics(true);
    // someIssues gives about 1,000 per offset (ids of one residue mod 97).
    const backlog = (await Promise.all([0, 1, 2, 3].map((k) => someIssues(system, BACKLOG_EVENTS / 4, 31 + 4 * run + k)))).flat();
    const headers = { authorization: `Bearer ${system.seeded.token}`, 'content-type': 'application/json' };
    const versions = new Map<number, number>();
    // A new title each time: an unchanged title is no write (and no event) on a database an earlier bench run wrote.
    const startedAt = Date.now();
    const queue = [...backlog];
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        for (let issue = queue.shift(); issue; issue = queue.shift()) {
          const res = await fetch(`${system.gateway.url}/api/v1/issues/${issue.key}`, { method: 'PATCH', headers, body: JSON.stringify({ title: `Backlog ${run} ${startedAt}` }) });
          const body = (await res.json()) as { version?: number };
          if (body.version) versions.set(issue.id, body.version);
        }
      }),
    );
    await sleep(1000); // the relay has published everything
    const ids = [...versions.keys()];
    const appliedNow = async () =>
      (
        await system.db.query(`SELECT count(*)::int AS n FROM "${SCHEMAS.statistics}".issues i JOIN unnest($1::int[], $2::int[]) AS w(id, v) ON w.id = i.id WHERE i.version >= w.v`, [
          ids,
          ids.map((id) => versions.get(id)),
        ])
      ).rows[0].n as number;
    const progress: Array<{ at: number; applied: number }> = [];
    let restarted = false;
    const watching = (async () => {
      const deadline = Date.now() + 90_000;
      while (Date.now() < deadline) {
        const applied = await appliedNow();
        if (applied > 0 || restarted) progress.push({ at: Date.now(), applied });
        if (applied >= ids.length) return;
        await sleep(5);
      }
    })();
    const restartedAt = Date.now();
    await system.restartStatistics(false);
    restarted = true;
    const healthyAt = Date.now();
    await watching;
    const first = progress.find((p) => p.applied > 0);
    const last = progress.at(-1);
    const perSecond = first && last && last.applied >= ids.length && last.at > first.at ? (ids.length - first.applied) / ((last.at - first.at) / 1000) : NaN;
    drains.push(perSecond);
    say(`B6 backlog run ${run + 1}: ${ids.length} events; ${first?.applied ?? 0} seen applied first, at ${first ? first.at - restartedAt : NaN} ms; all at ${last ? last.at - restartedAt : NaN} ms after the restart (${healthyAt - restartedAt} ms to /readyz)`);
  }
  row({ scenario: 'B6 backlog drain', metric: 'events/s', runs: drains, ceilingName: 'write rate', ceiling: rate, target: '≥ 10×', met: (_v, r) => r! >= 10 });
}

// ---------------------------------------------------------------------------- B7
/** A service's V8 old space as committed (its /metrics, prom-client's default metrics), MiB; NaN if unreadable. */
async function oldSpaceMiB(metricsUrl: string): Promise<number> {
  const text = await fetch(`${metricsUrl}/metrics`, { signal: AbortSignal.timeout(1000) })
    .then((res) => res.text())
    .catch(() => '');
  const line = text.split('\n').find((l) => l.startsWith('nodejs_heap_space_size_total_bytes{') && l.includes('space="old"'));
  return line ? Number(line.split(' ').at(-1)) / 1048576 : NaN;
}

async function b7(system: BenchSystem, b1Max: number) {
  const [issue] = await someIssues(system, 1, 5);
  const url = `${system.gateway.url}/api/v1/issues/${issue!.key}`;
  const headers = { authorization: `Bearer ${system.seeded.token}` };
  const rate = Math.round(1.5 * (Number.isFinite(b1Max) ? b1Max : 300));
  const probe = async () => {
    const t = performance.now();
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(5000) }).catch(() => null);
    if (res) await res.arrayBuffer();
    return { ok: res?.status === 200, ms: performance.now() - t };
  };
  const baseline: number[] = [];
  for (let i = 0; i < 20; i++) baseline.push((await probe()).ms);
  const normal = median(baseline);
  const watched = [system.gateway, system.issues, system.access];
  const pids = watched.map((service) => service.child.pid);
  const rssBefore = pids.map(rssMiB);
  // Where the RSS goes: each process's V8 old space (committed) at its largest in each overload.
  const oldSpacePeaks: number[][] = watched.map(() => []);
  // What the heaps hold: the largest heap in use after a full collection in each overload
  // (system.ts starts these services printing one line per full collection).
  const heldPeaks: number[][] = watched.map(() => []);
  const heldGrowth: number[] = [];
  const recoveries: number[] = [];
  const growth: number[] = [];
  const peaks: number[] = [];
  let firstPeak: number[] | undefined;
  let bad: Record<string, number> = {};
  let errors = 0;
  for (let run = 0; run < 3; run++) {
    const printedBefore = watched.map((service) => service.output().length);
    const overload = load({ kind: 'throughput', url, headers, connections: 200, overallRate: rate, durationSeconds: QUICK ? 8 : 15, timeoutSeconds: 10 });
    let peak = rssBefore.map(() => 0);
    let oldSpace = rssBefore.map(() => NaN);
    let scraping = false;
    const sampler = setInterval(() => {
      peak = pids.map((p, i) => Math.max(peak[i]!, rssMiB(p)));
      if (scraping) return;
      scraping = true;
      void Promise.all(watched.map((service) => oldSpaceMiB(service.metricsUrl)))
        .then((now) => (oldSpace = now.map((mib, i) => (Number.isNaN(mib) ? oldSpace[i]! : Number.isNaN(oldSpace[i]!) ? mib : Math.max(oldSpace[i]!, mib)))))
        .finally(() => (scraping = false));
    }, 250);
    const result = await overload;
    clearInterval(sampler);
    oldSpace.forEach((mib, i) => oldSpacePeaks[i]!.push(mib));
    const endedAt = Date.now();
    // Recovered: five probes in a row answered 200 within 3× the unloaded time (at least 20 ms).
    let streak = 0;
    let recoveredAt = NaN;
    while (Date.now() - endedAt < 30_000) {
      const p = await probe();
      if (p.ok && p.ms <= Math.max(20, 3 * normal)) {
        if (++streak === 1) recoveredAt = Date.now();
        if (streak >= 5) break;
      } else streak = 0;
      await sleep(50);
    }
    recoveries.push((recoveredAt - endedAt) / 1000);
    watched.forEach((service, i) => {
      const held = heapAfterFullCollections(service.output().slice(printedBefore[i]));
      heldPeaks[i]!.push(held.length > 0 ? Math.max(...held) : NaN); // NaN: no full collection in this overload
    });
    const heldRatios = heldPeaks.map((held) => held.at(-1)! / held[0]!).filter(Number.isFinite);
    if (run > 0 && heldRatios.length > 0) heldGrowth.push(Math.max(...heldRatios));
    for (const [code, count] of Object.entries(result.statusCodes)) if (code !== '200' && code !== '429' && code !== '503') bad[code] = (bad[code] ?? 0) + count;
    errors += result.errors + result.timeouts;
    // Flat: each later overload peaks no higher (within 10 %) than the first one did, i.e.
    // the heaps grow to the load once and then hold; nothing accumulates run after run.
    firstPeak ??= peak;
    if (run > 0) growth.push(Math.max(...peak.map((p, i) => p / firstPeak![i]!)));
    peaks.push(Math.max(...peak.map((p, i) => p / rssBefore[i]!)));
    say(`B7 run ${run + 1}: ${rate} req/s offered, ${result.requestsPerSecond.toFixed(0)} answered; codes ${JSON.stringify(result.statusCodes)}, ${result.errors} errors, ${result.timeouts} timeouts; RSS peak ${peak.map((p) => p.toFixed(0)).join('/')} MiB (before ${rssBefore.map((p) => p.toFixed(0)).join('/')}); recovery ${recoveries.at(-1)} s`);
  }
  const note = `offered ${rate} req/s; other codes ${JSON.stringify(bad)}, ${errors} transport errors/timeouts`;
  row({ scenario: 'B7 overload 1.5× B1 max', metric: 'recovery s', runs: recoveries, ceilingName: '', ceiling: null, target: '≤ 5 s', met: (v) => v <= 5 });
  row({
    scenario: 'B7 overload 1.5× B1 max',
    metric: 'peak RSS, later runs / first run',
    runs: growth,
    ceilingName: '',
    ceiling: null,
    target: 'flat (≤ 1.1×)',
    met: (v) => v <= 1.1,
    note: `peak / idle before: ${peaks.map((p) => p.toFixed(2)).join(' / ')}; V8 old space at its largest, MiB: ${watched.map((service, i) => `${service.name} ${oldSpacePeaks[i]!.map((m) => m.toFixed(0)).join(' / ')}`).join(', ')}`,
  });
  row({
    scenario: 'B7 overload 1.5× B1 max',
    metric: 'heap in use after a full collection, later runs / first run',
    runs: heldGrowth,
    ceilingName: '',
    ceiling: null,
    target: EXPLAINS,
    met: () => null,
    note: `its largest in each overload, MiB (– where none ran): ${watched.map((service, i) => `${service.name} ${heldPeaks[i]!.map((m) => (Number.isNaN(m) ? '–' : m.toFixed(1))).join(' / ')}`).join(', ')}`,
  });
  row({ scenario: 'B7 overload 1.5× B1 max', metric: 'answers not 2xx/429/503', value: Object.values(bad).reduce((a, b) => a + b, 0) + errors, runs: [], ceilingName: '', ceiling: null, target: '0', met: (v) => v === 0, note });
}

// ---------------------------------------------------------------------------- B8
async function b8(system: BenchSystem, cleanups: Array<() => Promise<unknown>>) {
  const [issue] = await someIssues(system, 1, 5); // B1's issue
  const key = issue!.key;
  const token = { authorization: `Bearer ${system.seeded.token}` };
  const mcpBody = getIssueCall(key);
  const targets = {
    rest: { url: `${system.gateway.url}/api/v1/issues/${key}`, headers: token, check: { kind: 'json-object', field: 'key', equals: key } },
    mcp: { url: `${system.gateway.url}/mcp`, method: 'POST', headers: { ...token, ...MCP_HEADERS }, body: mcpBody, check: { kind: 'mcp-result', id: 1, field: 'key', equals: key } },
  } satisfies Record<string, Omit<LoadJob, 'kind' | 'connections' | 'durationSeconds'>>;

  // Once before any load: the tool answers what REST answers, or nothing here is worth measuring.
  const rest = await fetch(targets.rest.url, { headers: targets.rest.headers });
  const restBody = (await rest.json()) as Record<string, unknown>;
  const mcp = await fetch(targets.mcp.url, { method: 'POST', headers: targets.mcp.headers, body: mcpBody });
  const mcpText = await mcp.text();
  const problem = answerProblem(targets.mcp.check, mcp.status, mcpText);
  if (rest.status !== 200 || problem) throw new Error(`B8: REST answered ${rest.status}; MCP: ${problem ?? 'ok'}`);
  const structured = (JSON.parse(mcpText) as { result: { structuredContent: unknown } }).result.structuredContent;
  if (JSON.stringify(structured) !== JSON.stringify(restBody)) throw new Error('B8: the tool\'s structuredContent is not the REST answer');
  say(`B8: ${mcp.headers.get('content-type')}, ${Buffer.byteLength(mcpText)} bytes per tool answer against ${Buffer.byteLength(JSON.stringify(restBody))} bytes of REST`);

  // The SDK's floor (floor-server.ts mcp): the same tool call answered by the SDK alone,
  // reached through a bare hop (floor-server.ts proxy: one Redis call, a keep-alive
  // forward), as the agent is a hop of its own between the gateway and the service.
  const answerFile = `/tmp/bench-mcp-answer-${process.pid}.json`;
  fs.writeFileSync(answerFile, JSON.stringify(restBody));
  cleanups.push(async () => fs.rmSync(answerFile, { force: true }));
  const sdk = await startFloorChain(system, 'mcp', [answerFile], cleanups);
  const sdkTarget = { url: `${sdk.proxy}/mcp`, method: 'POST', headers: MCP_HEADERS, body: mcpBody, check: { kind: 'mcp-result', id: 1, field: 'key', equals: key } } as const;

  // B1's gateway settings: 10 connections, the same duration; a short unmeasured warm-up
  // first (the agent is otherwise cold in the first run), then both sides in turn, the
  // order alternating from run to run.
  const job = (name: keyof typeof targets, seconds: number): LoadJob => ({ kind: 'throughput', ...targets[name], connections: 10, durationSeconds: seconds });
  for (const name of ['rest', 'mcp'] as const) await load(job(name, 2));
  await load({ kind: 'throughput', ...sdkTarget, connections: 10, durationSeconds: 2 });
  const rps: Record<keyof typeof targets, number[]> = { rest: [], mcp: [] };
  const bad: Record<keyof typeof targets, { answers: number; failed: number; first?: string }> = { rest: { answers: 0, failed: 0 }, mcp: { answers: 0, failed: 0 } };
  const cpu = cpuTally(CPU_SCOPE);
  for (let run = 0; run < RUNS; run++) {
    for (const name of run % 2 ? (['mcp', 'rest'] as const) : (['rest', 'mcp'] as const)) {
      const result = await cpu.measure(name, () => load(job(name, SECONDS)), (r) => r.total);
      rps[name].push(result.requestsPerSecond);
      bad[name].answers += result.total;
      // Answers that failed the check (status, JSON-RPC error, isError, another issue) and no answer at all.
      bad[name].failed += result.failedChecks + result.errors + result.timeouts;
      bad[name].first ??= result.firstFailure ?? (result.errors + result.timeouts ? `${result.errors} errors, ${result.timeouts} timeouts` : undefined);
    }
    await cpu.measure('sdk', () => load({ kind: 'throughput', ...sdkTarget, connections: 10, durationSeconds: SECONDS }), (r) => r.total);
    say(`B8 run ${run + 1}: REST ${rps.rest.at(-1)!.toFixed(0)}, MCP ${rps.mcp.at(-1)!.toFixed(0)} req/s; CPU ${cpu.runs('rest').at(-1)!.toFixed(2)} vs ${cpu.runs('mcp').at(-1)!.toFixed(2)} ms per request${bad.mcp.failed || bad.rest.failed ? `; FAILED CHECKS: MCP ${bad.mcp.failed}, REST ${bad.rest.failed} (${bad.mcp.first ?? bad.rest.first})` : ''}`);
  }
  const clean = bad.mcp.failed === 0 && bad.rest.failed === 0;
  const scenario = 'B8 get_issue tool via gateway /mcp';
  const restRps = median(rps.rest);
  const restCpu = median(cpu.runs('rest'));
  const ratios = costRatios({ rps: restRps, cpuMs: restCpu }, { rps: median(rps.mcp), cpuMs: median(cpu.runs('mcp')) });
  row({
    scenario,
    metric: 'req/s (10 conn.)',
    runs: rps.mcp,
    ceilingName: 'GET /issues/{key} via gateway',
    ceiling: restRps,
    ratio: ratios.throughput,
    target: '≤ 1.3× (REST ÷ MCP)',
    met: (_v, r) => clean && r! <= 1.3,
    note: `REST: ${rps.rest.map((r) => r.toFixed(0)).join(' / ')}`,
  });
  row({
    scenario,
    metric: CPU_METRIC,
    runs: cpu.runs('mcp'),
    ceilingName: 'REST via gateway, ms per request',
    ceiling: restCpu,
    ratio: ratios.cpu,
    target: '≤ 1.3× (MCP ÷ REST)',
    met: (_v, r) => clean && r! <= 1.3,
    note: `${cpu.note('mcp')}; REST: ${cpu.runs('rest').map((r) => r.toFixed(2)).join(' / ')}, ${cpu.note('rest')}`,
  });
  row({
    scenario,
    metric: 'tool calls not answered 200 with a JSON-RPC result',
    value: bad.mcp.failed,
    runs: [],
    ceilingName: '',
    ceiling: null,
    target: '0',
    met: () => clean,
    note: `of ${bad.mcp.answers} tool calls${bad.mcp.first ? `, first: ${bad.mcp.first.replace(/\|/g, '/')}` : ''}; REST: ${bad.rest.failed} of ${bad.rest.answers} not a 200 with the issue${bad.rest.first ? ` (${bad.rest.first.replace(/\|/g, '/')})` : ''}`,
  });
  // What the agent itself costs per call, beside the SDK answering the same call with nothing behind it.
  row({
    scenario: 'B8 the agent service alone',
    metric: 'CPU ms per tool call',
    runs: cpu.groupRuns('mcp', 'agent'),
    ceilingName: 'floor: the MCP SDK alone (stateless, JSON answers)',
    ceiling: median(cpu.groupRuns('sdk', 'floor mcp')),
    target: EXPLAINS,
    met: () => null,
  });
  // The least a tool call can cost: the REST request it wraps plus the SDK answering it,
  // then the same with the bare hop in front of the SDK (a hop of the agent's own: one
  // request received and one sent, one Redis call).
  const sdkRuns = cpu.groupRuns('sdk', 'floor mcp');
  const hopRuns = cpu.groupRuns('sdk', 'floor proxy');
  row({
    scenario: 'B8 floor: the REST request plus the MCP SDK alone',
    metric: CPU_METRIC,
    runs: cpu.runs('rest').map((rest, i) => rest + sdkRuns[i]!),
    ceilingName: 'REST via gateway, ms per request',
    ceiling: restCpu,
    target: EXPLAINS,
    met: () => null,
  });
  row({
    scenario: 'B8 floor: the REST request, a bare hop and the MCP SDK',
    metric: CPU_METRIC,
    runs: cpu.runs('rest').map((rest, i) => rest + sdkRuns[i]! + hopRuns[i]!),
    ceilingName: 'REST via gateway, ms per request',
    ceiling: restCpu,
    target: EXPLAINS,
    met: () => null,
    note: `the hop ${hopRuns.map((r) => r.toFixed(2)).join(' / ')} ms, the SDK ${sdkRuns.map((r) => r.toFixed(2)).join(' / ')} ms`,
  });
}

// ---------------------------------------------------------------------------- B9
/** A member of the bench workspace other than the seeded admin, with a fresh token. */
async function memberToken(system: BenchSystem): Promise<string> {
  const env = { ...system.env, DATABASE_SCHEMA: SCHEMAS.access };
  const known = await system.db.query(`SELECT id FROM "${SCHEMAS.access}".users WHERE workspace_id = $1 AND name = 'B9 member' LIMIT 1`, [system.seeded.workspaceId]);
  const user = known.rows[0]?.id;
  const created = user
    ? await admin(env, 'token', 'create', '--user', String(user))
    : await admin(env, 'user', 'add', '--workspace', String(system.seeded.workspaceId), '--name', 'B9 member', '--role', 'member');
  return created.token as string;
}

/**
 * Parse-cost abuse: one member token sends bodies that are cheap to send and were costly
 * to parse and validate (800 KB nested 400,000 deep; 90,000 keys), in turn, at 30 req/s
 * to POST /issues/search, while another user reads an issue. Each body must be refused
 * (422) before it is parsed, so the reader's latency stays near its unloaded figure.
 */
async function b9(system: BenchSystem) {
  const [issue] = await someIssues(system, 1, 5);
  const victim = { url: `${system.gateway.url}/api/v1/issues/${issue!.key}`, headers: { authorization: `Bearer ${system.seeded.token}` } };
  const abuser = { authorization: `Bearer ${await memberToken(system)}`, 'content-type': 'application/json' };
  const files = [
    { file: `/tmp/bench-b9-deep-${process.pid}.json`, body: `{"search":${'['.repeat(400_000)}${']'.repeat(400_000)}}` },
    { file: `/tmp/bench-b9-wide-${process.pid}.json`, body: `{${Array.from({ length: 90_000 }, (_, i) => `"k${i}":1`).join(',')}}` },
  ];
  for (const { file, body } of files) fs.writeFileSync(file, body);
  const rate = 30;
  const probe = (seconds: number) => load({ kind: 'latency', ...victim, connections: 1, durationSeconds: seconds });
  const p50 = { unloaded: [] as number[], abused: [] as number[] };
  const p95 = { unloaded: [] as number[], abused: [] as number[] };
  const abuse = { sent: 0, other: {} as Record<string, number>, errors: 0, p50: [] as number[] };
  try {
    await probe(1); // warm-up
    for (let run = 0; run < RUNS; run++) {
      const quiet = await probe(SECONDS);
      p50.unloaded.push(quiet.p50);
      p95.unloaded.push(quiet.p95!);
      // The abuse starts first and ends after the probe: the probe sees it all along.
      const abusing = load({ kind: 'throughput', url: `${system.gateway.url}/api/v1/issues/search`, method: 'POST', headers: abuser, bodyFiles: files.map((f) => f.file), connections: 10, overallRate: rate, durationSeconds: SECONDS + 2, timeoutSeconds: 30 });
      await sleep(1000);
      const abused = await probe(SECONDS);
      const sent = await abusing;
      p50.abused.push(abused.p50);
      p95.abused.push(abused.p95!);
      abuse.sent += sent.total;
      abuse.errors += sent.errors + sent.timeouts;
      abuse.p50.push(sent.p50);
      for (const [code, count] of Object.entries(sent.statusCodes)) if (code !== '422') abuse.other[code] = (abuse.other[code] ?? 0) + count;
      say(`B9 run ${run + 1}: victim p50 ${quiet.p50.toFixed(1)} → ${abused.p50.toFixed(1)} ms, p95 ${quiet.p95!.toFixed(1)} → ${abused.p95!.toFixed(1)} ms; abuse ${(sent.total / (SECONDS + 2)).toFixed(1)} req/s answered, ${JSON.stringify(sent.statusCodes)}, p50 ${sent.p50} ms`);
    }
  } finally {
    for (const { file } of files) fs.rmSync(file, { force: true });
  }
  const scenario = 'B9 GET issue under parse-cost abuse';
  row({ scenario, metric: 'victim p50 ms (1 conn.)', runs: p50.abused, ceilingName: 'unloaded p50 ms', ceiling: median(p50.unloaded), target: '≤ 2×', met: (_v, r) => r! <= 2 });
  row({ scenario, metric: 'victim p95 ms (1 conn.)', runs: p95.abused, ceilingName: 'unloaded p95 ms', ceiling: median(p95.unloaded), target: '(the tail)', met: () => null });
  const bad = Object.values(abuse.other).reduce((a, b) => a + b, 0) + abuse.errors;
  row({
    scenario,
    metric: 'abusive requests not answered 422',
    value: bad,
    runs: [],
    ceilingName: '',
    ceiling: null,
    target: '0',
    met: (v) => v === 0,
    note: `of ${abuse.sent} sent by one member token at ${rate} req/s (800 KB nested 400,000 deep and 90,000 keys in turn, to POST /issues/search); their p50 ${median(abuse.p50).toFixed(0)} ms; other codes ${JSON.stringify(abuse.other)}, ${abuse.errors} transport errors/timeouts`,
  });
}

// ---------------------------------------------------------------------------- B10
/** Sign-ins in flight at once (the load generator's connections, and the verifies of the floor). */
const SIGN_IN_CONNECTIONS = 4;

/**
 * Sign-in: POST /auth/sign-in through the gateway with the seeded admin's email and
 * password (right each time: a session each, nothing counted as a failure), 4 connections,
 * its CPU over all processes as B1's, against @node-rs/argon2's verify of the same hash
 * with the same password alone, 4 at a time, in this process (process.cpuUsage: the
 * addon's threads included), in turn run by run (the order alternating). Argon2id is
 * meant to cost what it costs; the rest of a sign-in (the gateway's hop, the throttle's
 * Redis read, the user's row, the new session's row) should add little to it.
 */
async function b10(system: BenchSystem) {
  const stored = await system.db.query(`SELECT password_hash FROM "${SCHEMAS.access}".users WHERE id = $1`, [system.seeded.userId]);
  const hash = stored.rows[0]?.password_hash as string;
  const job: LoadJob = {
    kind: 'latency',
    url: `${system.gateway.url}/auth/sign-in`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: system.person.email, password: system.person.password }),
    connections: SIGN_IN_CONNECTIONS,
    durationSeconds: SECONDS,
  };
  // Warm-up, unmeasured: the services' statements prepared and their code compiled.
  await load({ ...job, durationSeconds: 2 });
  await verifyAlone(hash, system.person.password, SIGN_IN_CONNECTIONS, 1);
  const cpu = cpuTally(CPU_SCOPE);
  const signIns = listsFor(['rps', 'p50', 'p99'] as const);
  const alone = listsFor(['cpuMs', 'perSecond', 'p50', 'p99'] as const);
  const startups: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    for (const kind of run % 2 ? (['alone', 'signIn'] as const) : (['signIn', 'alone'] as const)) {
      if (kind === 'alone') {
        const figures = await verifyAlone(hash, system.person.password, SIGN_IN_CONNECTIONS, SECONDS);
        for (const key of ['cpuMs', 'perSecond', 'p50', 'p99'] as const) alone[key].push(figures[key]);
        continue;
      }
      // The load generator's start-up (about half a second of CPU) is not a sign-in's: left out.
      const result = await cpu.measure('signIn', () => load(job), (r) => r.total, (r) => r.startupCpuMs ?? 0);
      startups.push(result.startupCpuMs ?? 0);
      if (result.statusCodes['204'] !== result.total || result.errors) say(`B10 sign-in: not all 204: ${JSON.stringify(result.statusCodes)}, ${result.errors} errors`);
      signIns.rps.push(result.requestsPerSecond);
      signIns.p50.push(result.p50);
      signIns.p99.push(result.p99);
    }
    say(`B10 run ${run + 1}: sign-in ${cpu.runs('signIn').at(-1)!.toFixed(1)} ms of CPU, ${signIns.rps.at(-1)!.toFixed(1)}/s; verify alone ${alone.cpuMs.at(-1)!.toFixed(1)} ms, ${alone.perSecond.at(-1)!.toFixed(1)}/s`);
  }
  const scenario = 'B10 sign-in (POST /auth/sign-in via gateway)';
  const conn = `${SIGN_IN_CONNECTIONS} conn.`;
  row({
    scenario,
    metric: CPU_METRIC,
    runs: cpu.runs('signIn'),
    ceilingName: 'Argon2id verify of the same hash alone, ms',
    ceiling: median(alone.cpuMs),
    target: '≤ 1.3× (Argon2id and little more)',
    met: (_v, r) => r! <= 1.3,
    note: `${cpu.note('signIn')}; the load generator's start-up left out: ${median(startups).toFixed(0)} ms of CPU a run; verify alone: ${alone.cpuMs.map((ms) => ms.toFixed(2)).join(' / ')} ms`,
  });
  // The service that verifies, alone: the rest of the system's share (and its idle work, a
  // few % of a core that a hundred sign-ins a second weigh more than B1's thousands) left out.
  row({
    scenario: "B10 sign-in, the access service's share",
    metric: 'CPU ms per request, the access service',
    runs: cpu.groupRuns('signIn', 'access'),
    ceilingName: 'Argon2id verify of the same hash alone, ms',
    ceiling: median(alone.cpuMs),
    target: EXPLAINS,
    met: () => null,
  });
  row({ scenario, metric: `req/s (${conn})`, runs: signIns.rps, ceilingName: `verifies alone per s (${SIGN_IN_CONNECTIONS} at a time)`, ceiling: median(alone.perSecond), target: EXPLAINS, met: () => null });
  row({ scenario, metric: `p50 ms (${conn})`, runs: signIns.p50, ceilingName: 'verify alone p50 ms', ceiling: median(alone.p50), target: EXPLAINS, met: () => null });
  row({ scenario, metric: `p99 ms (${conn})`, runs: signIns.p99, ceilingName: 'verify alone p99 ms', ceiling: median(alone.p99), target: EXPLAINS, met: () => null });
}

// ---------------------------------------------------------------------------- B11
/** The issue page's loads measured (and the API read beside each). */
const PAGE_LOADS = 20;
/** The JavaScript a first visit may load, gzipped (the web interface's budget). */
const SCRIPT_BUDGET_KB = 150;

/**
 * The web page (web-page.ts): the JavaScript and CSS a first visit loads, gzipped (and as
 * sent: brotli), against a budget of 150 KB of gzipped JavaScript; and the time from navigation to
 * an issue's page showing its comments, p50 and p95 over 20 loads in headless Chromium,
 * against the same issue read alone by GET /api/v1/issues/{key} in the same page, in turn.
 * The page's time is the API read's plus the HTML, the session's token, React drawing it.
 */
async function b11(system: BenchSystem) {
  const [issue] = await someIssues(system, 1, 11);
  const comment = `B11 comment ${Date.now()}`;
  const posted = await fetch(`${system.gateway.url}/api/v1/issues/${issue!.key}/comments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${system.seeded.token}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
    body: JSON.stringify({ body: comment }),
  });
  if (posted.status !== 201) throw new Error(`B11: a comment on ${issue!.key}: ${posted.status} ${await posted.text()}`);
  const figures = await measureWebPage(system, { key: issue!.key, comment }, system.seeded.token, PAGE_LOADS);
  const kb = (bytes: number) => bytes / 1024;
  const scenario = 'B11 web page (an issue, first visit and again)';
  row({
    scenario,
    metric: 'JavaScript KB, gzipped, first visit',
    runs: [kb(figures.scriptBytes.gzipped)],
    ceilingName: 'budget KB',
    ceiling: SCRIPT_BUDGET_KB,
    target: '≤ 1× the budget',
    met: (_v, r) => r! <= 1,
    note: `${figures.scriptBytes.files} file(s), ${kb(figures.scriptBytes.unpacked).toFixed(0)} KB unpacked, ${kb(figures.scriptBytes.sent).toFixed(1)} KB as sent (brotli)`,
  });
  row({
    scenario,
    metric: 'CSS KB, gzipped, first visit',
    runs: [kb(figures.styleBytes.gzipped)],
    ceilingName: '–',
    ceiling: null,
    target: EXPLAINS,
    met: () => null,
    note: `${figures.styleBytes.files} file(s), ${kb(figures.styleBytes.unpacked).toFixed(0)} KB unpacked, ${kb(figures.styleBytes.sent).toFixed(1)} KB as sent (brotli)`,
  });
  for (const [name, at] of [
    ['p50', 50],
    ['p95', 95],
  ] as const) {
    row({
      scenario,
      metric: `navigation to comments shown, ${name} ms (${PAGE_LOADS} loads)`,
      value: percentile(figures.pageMs, at),
      runs: figures.pageMs,
      ceilingName: `GET /api/v1/issues/{key} alone ${name} ms`,
      ceiling: percentile(figures.apiMs, at),
      target: EXPLAINS,
      met: () => null,
      note: name === 'p50' ? `medians from navigation: ${LOAD_STEPS.map((step) => `${step} ${median(figures.steps[step]).toFixed(0)} ms`).join(', ')}` : undefined,
    });
  }
}

// ---------------------------------------------------------------------------- B12
/** B12's writes per second (the waits and the cost), and the burst of deliveries. */
const B12_RATE = 200;
const B12_BURST = QUICK ? 1000 : 2000;

/**
 * What integrations wait for (webhooks.ts): a write's 2xx to its webhook at a fast receiver
 * and to its entry in the feed, at 200 writes/s; deliveries per second to one webhook against
 * a bare node:http POST loop; the CPU the notifications service adds to a write.
 */
async function b12(system: BenchSystem) {
  const f = await measureWebhooks(system, {
    runs: RUNS,
    seconds: SECONDS,
    rate: B12_RATE,
    burst: B12_BURST,
    cpuScope: CPU_SCOPE,
    patchIssues: await someIssues(system, 400, 53),
    commentKeys: await writeQueueIssueKeys(system, 400),
    brokerRoundTrip: (rate, seconds) => amqpRoundTrip(process.env.BENCH_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672', rate, seconds),
    say,
  });
  const at = `${B12_RATE} writes/s, PATCH and comment in turn`;
  const lost = (runs: number[]) => (runs.some((n) => n > 0) ? `; never seen: ${runs.join(' / ')}` : '');
  const target = `(reported; worker poll ${WEBHOOK_POLL_INTERVAL_MS} ms)`;
  for (const [name, p] of [
    ['p50', 'p50'],
    ['p99', 'p99'],
  ] as const) {
    row({
      scenario: `B12 webhook at a fast receiver after a write's 2xx (${at})`,
      metric: `${name} ms`,
      runs: f.webhook[p],
      ceilingName: `the same writes in the feed, ${name} ms`,
      ceiling: median(f.feed[p]),
      target,
      met: () => null,
      note:
        name === 'p50'
          ? `writes answered per run ${f.writes.join(' / ')} of ${B12_RATE * SECONDS}; the write's own 2xx p50 ${f.writeP50.map((v) => v.toFixed(1)).join(' / ')} ms${lost(f.webhook.lost)}`
          : undefined,
    });
  }
  for (const [name, p] of [
    ['p50', 'p50'],
    ['p99', 'p99'],
  ] as const) {
    row({
      scenario: `B12 feed entry after a write's 2xx (${at}; follower every ${FOLLOW_INTERVAL_MS} ms)`,
      metric: `${name} ms`,
      runs: f.feed[p],
      ceilingName: `amqplib confirm round trip ${name} ms`,
      ceiling: median(f.broker[p]),
      target: EXPLAINS,
      met: () => null,
      note:
        name === 'p50'
          ? `the follower's request p50 ${f.followerPollP50.map((v) => v.toFixed(1)).join(' / ')} ms${f.followerRefused.some((n) => n > 0) ? `; its requests refused ${f.followerRefused.join(' / ')}` : ''}${lost(f.feed.lost)}`
          : undefined,
    });
  }
  row({
    scenario: `B12 webhook deliveries, a burst of ${f.burst.count} to one fast receiver`,
    metric: 'deliveries/s (first to last arrival)',
    runs: f.burst.perSecond,
    ceilingName: `bare node:http POST loop, ${f.burst.count} × ${f.burst.bodyBytes} B, ${PER_ENDPOINT} at a time, POSTs/s`,
    ceiling: median(f.burst.floorPerSecond),
    target: `(reported; ${PER_ENDPOINT} in flight per webhook)`,
    met: () => null,
    note: `floor ${f.burst.floorPerSecond.map((v) => v.toFixed(0)).join(' / ')}; events recorded over ${f.burst.recordedSpanMs.map((v) => v.toFixed(0)).join(' / ')} ms, delivered over ${f.burst.arrivalSpanMs.map((v) => v.toFixed(0)).join(' / ')} ms`,
  });
  const mix = `${B12_RATE} writes/s, PATCH and comment`;
  row({
    scenario: `B12 writes with notifications running, webhook off (${mix})`,
    metric: 'CPU ms per write, all processes',
    runs: f.cpu.running,
    ceilingName: 'notifications stopped, its queue deleted',
    ceiling: median(f.cpu.stopped),
    target: EXPLAINS,
    met: () => null,
    note: `${f.cpu.notes.running}; stopped: ${f.cpu.notes.stopped}`,
  });
  const added = f.cpu.running.map((v, i) => v - f.cpu.stopped[i]!);
  row({
    scenario: 'B12 what the notifications service adds to a write (running − stopped, run by run)',
    metric: 'CPU ms per write, all processes',
    runs: added,
    ceilingName: 'the write with it running, ms (ratio: its share)',
    ceiling: median(f.cpu.running),
    target: EXPLAINS,
    met: () => null,
    note: `by group, median running − median stopped: ${COST_GROUPS.map((g) => `${g} ${(median(f.cpu.groups.running[g]) - median(f.cpu.groups.stopped[g])).toFixed(2)}`).join(', ')}; writes/s reached: running ${f.cpu.rate.running.map((v) => v.toFixed(0)).join(' / ')}, stopped ${f.cpu.rate.stopped.map((v) => v.toFixed(0)).join(' / ')}`,
  });
  row({
    scenario: `B12 writes with one webhook delivering each (${mix})`,
    metric: 'CPU ms per write, all processes',
    runs: f.cpu.delivering,
    ceilingName: 'notifications running, webhook off',
    ceiling: median(f.cpu.running),
    target: EXPLAINS,
    met: () => null,
    note: `${f.cpu.notes.delivering}; the receiver's own CPU not counted; notifications ${f.cpu.groups.delivering.notifications.map((v) => v.toFixed(2)).join(' / ')} against ${f.cpu.groups.running.notifications.map((v) => v.toFixed(2)).join(' / ')} with the webhook off`,
  });
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
