import { SERVICE_NAMES } from '@tracker/system-tests-support';
import { say, type Bench } from '../run';
import { median } from '../stats';
import { measureStartup, type Build } from '../startup';

/**
 * Production builds: each service started once more beside the running system, compiled
 * (what `pnpm start` and the images run) and through tsx (development), in turn; the time
 * from spawn to its first ready /readyz and its RSS after 3 s idle.
 */
export async function b0(bench: Bench) {
  const { system, row } = bench;
  for (const name of SERVICE_NAMES) {
    const samples: Record<Build, { readyMs: number[]; rss: number[] }> = { compiled: { readyMs: [], rss: [] }, tsx: { readyMs: [], rss: [] } };
    for (let run = 0; run < bench.runs; run++) {
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

