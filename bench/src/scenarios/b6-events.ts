/**
 * B6, events: a write's time until the statistics replica shows it, at 200 writes/s,
 * against the broker's own round trip; and how fast a backlog drains after a restart.
 */
import { amqpRoundTrip } from '../amqp-round-trip';
import { someIssues } from '../issue-picks';
import { say, sleep, type Bench } from '../run';
import { SCHEMAS } from '../seed';
import { median, percentile } from '../stats';
import type { BenchSystem } from '../system';

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

export async function b6(bench: Bench) {
  const { system, row } = bench;
  const rate = 200;
  const seconds = bench.quick ? 4 : 10;
  const issues = await someIssues(system, 400, 23);
  const lagP99: number[] = [];
  const amqpP99: number[] = [];
  for (let run = 0; run < bench.runs; run++) {
    const { lags, lost } = await replicaLag(system, rate, seconds, issues);
    lagP99.push(percentile(lags, 99));
    amqpP99.push(percentile(await amqpRoundTrip(bench.amqpUrl, rate, seconds), 99));
    say(`B6 run ${run + 1}: replica lag p99 ${lagP99.at(-1)} ms (${lags.length} writes${lost ? `, ${lost} never seen` : ''}), amqp p99 ${amqpP99.at(-1)} ms`);
  }
  row({ scenario: 'B6 event lag at 200 writes/s', metric: 'p99 ms', runs: lagP99, ceilingName: 'amqplib confirm round trip p99', ceiling: median(amqpP99), ratio: null, target: '≤ 250 ms', met: (v) => v <= 250 });

  // Backlog: the consumer away while writes go on, then how fast it catches up. The rate
  // is counted from the first event seen applied to the last, so the process's start-up
  // (a fast consumer drains much of the backlog before /readyz answers) is not in it.
  const drains: number[] = [];
  for (let run = 0; run < (bench.quick ? 1 : 3); run++) {
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

