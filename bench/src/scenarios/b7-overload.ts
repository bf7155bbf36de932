/**
 * B7, overload: GET issue offered at 1.5 × B1's rate through the gateway, three times;
 * the recovery after each, and whether the services' memory grows from one to the next.
 */
import { someIssues } from '../issue-picks';
import { EXPLAINS } from '../rows';
import { say, sleep, type Bench } from '../run';
import { heapAfterFullCollections, median } from '../stats';
import { load, rssMiB } from '../system';

/** A service's V8 old space as committed (its /metrics, prom-client's default metrics), MiB; NaN if unreadable. */
async function oldSpaceMiB(metricsUrl: string): Promise<number> {
  const text = await fetch(`${metricsUrl}/metrics`, { signal: AbortSignal.timeout(1000) })
    .then((res) => res.text())
    .catch(() => '');
  const line = text.split('\n').find((l) => l.startsWith('nodejs_heap_space_size_total_bytes{') && l.includes('space="old"'));
  return line ? Number(line.split(' ').at(-1)) / 1048576 : NaN;
}

export async function b7(bench: Bench, b1Max: number) {
  const { system, row } = bench;
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
    const overload = load({ kind: 'throughput', url, headers, connections: 200, overallRate: rate, durationSeconds: bench.quick ? 8 : 15, timeoutSeconds: 10 });
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

