/**
 * `pnpm bench [--quick] [--large] [--only B1,B4]`: every scenario measured together
 * with its ceiling in the same run, several short runs each (interleaved, so machine
 * noise hits both alike), medians and ratios printed and written to
 * bench/results/latest.md. Not a test: nothing here fails a build.
 *
 * This file reads the command line, starts the system and runs the chosen scenarios in
 * order; each scenario (scenarios/) measures and adds its rows (rows.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { rowCollector } from './rows';
import { say, type Bench } from './run';
import { vacuumDatabase } from './seed';
import { table } from './stats';
import { buildServices, startBenchSystem } from './system';
import { b0 } from './scenarios/b0-startup';
import { b1b2 } from './scenarios/b1-b2-reads';
import { b3 } from './scenarios/b3-writes';
import { b4 } from './scenarios/b4-search';
import { b5 } from './scenarios/b5-statistics';
import { b6 } from './scenarios/b6-events';
import { b7 } from './scenarios/b7-overload';
import { b8 } from './scenarios/b8-mcp';
import { b9 } from './scenarios/b9-parse-abuse';
import { b10 } from './scenarios/b10-sign-in';
import { b11 } from './scenarios/b11-web-page';
import { b12 } from './scenarios/b12-webhooks';

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

const wants = (s: string) => ONLY.length === 0 || ONLY.includes(s);
const { rows, row } = rowCollector(say);

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
  const bench: Bench = {
    system,
    quick: QUICK,
    runs: RUNS,
    seconds: SECONDS,
    issues: ISSUES,
    databaseUrl: DATABASE_URL,
    amqpUrl: options.amqpUrl,
    cpuScope: CPU_SCOPE,
    wants,
    cleanups,
    row,
  };
  let b1Max = NaN;
  try {
    if (wants('B0')) await b0(bench);
    if (wants('B1') || wants('B2') || wants('B7')) b1Max = await b1b2(bench);
    if (wants('B3')) await b3(bench);
    // B3's writes (new issues and comments, updated rows) vacuumed before the reads, as autovacuum would.
    if (wants('B3')) await vacuumDatabase(system.db);
    if (wants('B4')) await b4(bench);
    if (wants('B5')) await b5(bench);
    if (wants('B6')) await b6(bench);
    if (wants('B7')) await b7(bench, b1Max);
    if (wants('B8')) await b8(bench);
    if (wants('B9')) await b9(bench);
    if (wants('B10')) await b10(bench);
    if (wants('B11')) await b11(bench);
    if (wants('B12')) await b12(bench);
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

main().catch((err) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
