import { amqpRoundTrip } from '../amqp-round-trip';
import { someIssues, writeQueueIssueKeys } from '../issue-picks';
import { EXPLAINS } from '../rows';
import { say, type Bench } from '../run';
import { median } from '../stats';
import { COST_GROUPS, FOLLOW_INTERVAL_MS, measureWebhooks, PER_ENDPOINT, WEBHOOK_POLL_INTERVAL_MS } from '../webhooks';

/** B12's writes per second (the waits and the cost), and the burst of deliveries. */
const B12_RATE = 200;

/**
 * What integrations wait for (webhooks.ts): a write's 2xx to its webhook at a fast receiver
 * and to its entry in the feed, at 200 writes/s; deliveries per second to one webhook against
 * a bare node:http POST loop; the CPU the notifications service adds to a write.
 */
export async function b12(bench: Bench) {
  const { system, row } = bench;
  const B12_BURST = bench.quick ? 1000 : 2000;
  const f = await measureWebhooks(system, {
    runs: bench.runs,
    seconds: bench.seconds,
    rate: B12_RATE,
    burst: B12_BURST,
    cpuScope: bench.cpuScope,
    patchIssues: await someIssues(system, 400, 53),
    commentKeys: await writeQueueIssueKeys(system, 400),
    brokerRoundTrip: (rate, seconds) => amqpRoundTrip(bench.amqpUrl, rate, seconds),
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
          ? `writes answered per run ${f.writes.join(' / ')} of ${B12_RATE * bench.seconds}; the write's own 2xx p50 ${f.writeP50.map((v) => v.toFixed(1)).join(' / ')} ms${lost(f.webhook.lost)}`
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
