/**
 * How the costs grow: `pnpm bench:scale [--quick]` runs the bench (main.ts) once per size
 * of the seeded workspace and puts the figures side by side, one column per size:
 * B1 and B3 at 10k, 100k and 1M issues (100 queues), B5 with 100 and 5,000 queues
 * (100k issues). Each size has its own database, seeded once and kept. The table goes to
 * stdout and bench/results/scale.md.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { scaleTable, type ScaleColumn } from './stats';
import type { Row } from './stats';

const QUICK = process.argv.includes('--quick');

const RUNS: Array<{ label: string; only: string; issues: number; queues: number }> = [
  { label: '10k issues', only: 'B1,B3', issues: 10_000, queues: 100 },
  { label: '100k issues', only: 'B1,B3', issues: 100_000, queues: 100 },
  { label: '1M issues', only: 'B1,B3', issues: 1_000_000, queues: 100 },
  { label: '100 queues', only: 'B5', issues: 100_000, queues: 100 },
  { label: '5,000 queues', only: 'B5', issues: 100_000, queues: 5_000 },
];

function main() {
  const started = Date.now();
  const columns: ScaleColumn[] = [];
  for (const run of RUNS) {
    const file = path.join(os.tmpdir(), `bench-scale-${process.pid}-${columns.length}.json`);
    process.stderr.write(`[scale] ${run.label}: ${run.only}\n`);
    const args = ['--import', 'tsx', path.join(__dirname, 'main.ts'), '--only', run.only, '--issues', String(run.issues), '--queues', String(run.queues), '--rows-json', file];
    if (QUICK) args.push('--quick');
    execFileSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    columns.push({ label: run.label, group: run.only, rows: JSON.parse(fs.readFileSync(file, 'utf8')) as Row[] });
    fs.rmSync(file, { force: true });
  }
  const text = [
    '# How the costs grow',
    '',
    `${new Date().toISOString()} · ${QUICK ? '--quick' : 'full'} · took ${((Date.now() - started) / 60_000).toFixed(1)} min · medians of each size's runs`,
    '',
    scaleTable(columns),
    '',
  ].join('\n');
  process.stdout.write(`\n${text}`);
  fs.writeFileSync(path.join(__dirname, '../results/scale.md'), text);
}

main();
