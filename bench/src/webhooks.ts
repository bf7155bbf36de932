/**
 * B12, what integrations wait for: the notifications service's webhooks and feed, measured
 * from outside as an integration meets them (main.ts makes the rows).
 *
 * 1. Waits: writes at a steady rate through the gateway (PATCH /issues/{key} and POST
 *    /issues/{key}/comments in turn), each write's 2xx to (a) its webhook arriving at a fast
 *    receiver (integration.ts `receive`: node:http on 127.0.0.1 answering 204 at once) and
 *    (b) its event answered by a feed follower (integration.ts `follow`, every 20 ms, so its
 *    own interval adds at most about 20 ms); both matched to the write by the issue's key and
 *    version or the comment's id. Beside them, the broker's own round trip at the same rate.
 * 2. Deliveries per second: the notifications service stopped, a burst of PATCHes made (their
 *    events wait in its queue), the service started again; from the first delivery's arrival
 *    to the last. The floor: the same number of POSTs of the same body size, as many at a time
 *    as a webhook is given (WEBHOOK_CONCURRENCY_PER_ENDPOINT, 10), each on a new connection as
 *    the sender makes them, from a bare node:http loop (integration.ts `post`) to the same receiver.
 * 3. What the consumer costs a write: CPU per write of every process (cpu.ts) under the same
 *    write mix with the notifications service running (its webhook switched off, so only the
 *    consumer's recording and the service's idle work), stopped with its queue deleted (as if
 *    it were not deployed: the broker routes nothing to it), and running with the webhook on
 *    (each write's event also delivered).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { connect } from 'amqplib';
import { freePort } from '@tracker/testing';
import { cpuTally, type CpuScope } from './cpu';
import { arrivalRate, commentMatch, cursorAfter, issueMatch, waits } from './integration-figures';
import { NOTIFICATIONS_SCHEMA, SCHEMAS } from './seed';
import { listsFor } from './rows';
import { sleep } from './run';
import { percentile } from './stats';
import { load, NOTIFICATIONS_EVENTS_QUEUE, type BenchSystem } from './system';
import type { LoadResult } from './loader';

/** The delivery worker's poll, as the bench runs the service (its default: system.ts sets none). */
export const WEBHOOK_POLL_INTERVAL_MS = 250;
/** Deliveries in flight per webhook (the service's default WEBHOOK_CONCURRENCY_PER_ENDPOINT): the floor's concurrency. */
export const PER_ENDPOINT = 10;
/** How often the feed follower asks again when its last page was not full. */
export const FOLLOW_INTERVAL_MS = 20;
/** The waits' writes in flight at most (the gateway answers 429 past 256 at once from one client). */
const MAX_IN_FLIGHT = 100;

export interface WebhookFigures {
  /** Per run: p50 and p99 of each wait, ms, and the writes never seen. */
  webhook: { p50: number[]; p99: number[]; lost: number[] };
  feed: { p50: number[]; p99: number[]; lost: number[] };
  /** The broker alone: amqplib publish-confirm-consume at the same rate, p50 and p99 ms per run. */
  broker: { p50: number[]; p99: number[] };
  /** The writes' own time to their 2xx, p50 ms per run; the follower's request, p50 ms per run; writes made per run. */
  writeP50: number[];
  followerPollP50: number[];
  writes: number[];
  /** The follower's requests answered other than 200, per run. */
  followerRefused: number[];
  /** Part 2: deliveries per second per run, the floor's, the events' recording span (ms, first to last recorded) and the body size. */
  burst: { count: number; perSecond: number[]; floorPerSecond: number[]; recordedSpanMs: number[]; arrivalSpanMs: number[]; bodyBytes: number };
  /** Part 3: CPU ms per write of every process, per run, and the last run's breakdown. */
  cpu: Record<CostCase, number[]> & {
    notes: Record<CostCase, string>;
    /** CPU ms per write of some groups (notifications, postgres, rabbitmq), per run. */
    groups: Record<CostCase, Record<CostGroup, number[]>>;
    /** Writes per second reached, per run. */
    rate: Record<CostCase, number[]>;
  };
}

export type CostCase = 'running' | 'stopped' | 'delivering';
export const COST_GROUPS = ['notifications', 'postgres', 'rabbitmq'] as const;
export type CostGroup = (typeof COST_GROUPS)[number];

export interface WebhookOptions {
  runs: number;
  seconds: number;
  /** Writes per second for the waits and the cost. */
  rate: number;
  burst: number;
  cpuScope: CpuScope;
  /** Issues to PATCH (at least rate / 2 of them: one write per issue in flight) and issues of the write queues to comment on. */
  patchIssues: Array<{ key: string }>;
  commentKeys: string[];
  /** The broker's round trip at `rate` for `seconds`, each message's time in ms (main.ts's B6 ceiling). */
  brokerRoundTrip: (rate: number, seconds: number) => Promise<number[]>;
  say: (text: string) => void;
}

const now = () => performance.timeOrigin + performance.now();

interface Arrival {
  at: number;
  path: string;
  bytes: number;
  match: string | null;
}

/**
 * integration.ts in its own process, each JSON line it prints given to `onLine`: once it has
 * printed `ready` (at once when null).
 */
async function startIntegration(args: string[], ready: string | null, onLine: (line: any) => void): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'integration.ts'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout! });
  await new Promise<void>((resolve, reject) => {
    lines.on('line', (line) => {
      if (line === ready) resolve();
      else if (line.startsWith('{')) onLine(JSON.parse(line));
    });
    if (ready === null) resolve();
    child.once('exit', (code) => reject(new Error(`integration.ts ${args[0]} exited with ${code}`)));
  });
  return child;
}

const stopped = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

async function until(done: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

export async function measureWebhooks(system: BenchSystem, options: WebhookOptions): Promise<WebhookFigures> {
  const { runs, seconds, rate, say } = options;
  const api = `${system.gateway.url}/api/v1`;
  const headers = { authorization: `Bearer ${system.seeded.token}`, 'content-type': 'application/json' };
  let onArrival: (arrival: Arrival) => void = () => undefined;
  const port = await freePort();
  const receiver = await startIntegration(['receive', String(port)], 'listening', (a: Arrival) => onArrival(a));
  let webhookId: number | undefined;
  const setWebhook = async (body: Record<string, unknown>) => {
    const res = await fetch(`${api}/webhooks/${webhookId}`, { method: 'PATCH', headers, body: JSON.stringify(body) });
    if (res.status !== 200) throw new Error(`B12: PATCH /webhooks/${webhookId}: ${res.status} ${await res.text()}`);
  };
  try {
    const created = await fetch(`${api}/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook`, events: ['issue.updated', 'comment.added'], description: 'B12: a fast receiver' }),
    });
    if (created.status !== 201) throw new Error(`B12: POST /webhooks: ${created.status} ${await created.text()}`);
    webhookId = ((await created.json()) as { id: number }).id;

    // ---- 1. The waits, and the broker's round trip, run by run.
    const figures: WebhookFigures = {
      webhook: { p50: [], p99: [], lost: [] },
      feed: { p50: [], p99: [], lost: [] },
      broker: { p50: [], p99: [] },
      writeP50: [],
      followerPollP50: [],
      writes: [],
      followerRefused: [],
      burst: { count: options.burst, perSecond: [], floorPerSecond: [], recordedSpanMs: [], arrivalSpanMs: [], bodyBytes: NaN },
      cpu: {
        running: [],
        stopped: [],
        delivering: [],
        notes: { running: '', stopped: '', delivering: '' },
        groups: { running: listsFor(COST_GROUPS), stopped: listsFor(COST_GROUPS), delivering: listsFor(COST_GROUPS) },
        rate: { running: [], stopped: [], delivering: [] },
      },
    };
    const patchBodyBytes: number[] = [];
    for (let run = 0; run < runs; run++) {
      const hooked = new Map<string, number>();
      const fed = new Map<string, number>();
      const polls: number[] = [];
      let refused = 0;
      onArrival = (a) => {
        if (!a.match || hooked.has(a.match)) return;
        hooked.set(a.match, a.at);
        if (a.match.startsWith('issue:')) patchBodyBytes.push(a.bytes);
      };
      const newest = (await system.db.query(`SELECT coalesce(max(seq), 0)::text AS seq FROM "${NOTIFICATIONS_SCHEMA}".events`)).rows[0].seq as string;
      const follower = await startIntegration(['follow', `${api}/events`, system.seeded.token, cursorAfter(newest), String(FOLLOW_INTERVAL_MS)], 'following', (line) => {
        if (typeof line.poll === 'number') polls.push(line.poll);
        else if (typeof line.refused === 'number') refused++;
        else if (line.match && !fed.has(line.match)) fed.set(line.match, line.at);
      });
      try {
        const { answered, writeMs } = await steadyWrites(api, headers, options, run, rate, seconds);
        const all = () => [...answered.keys()].every((m) => hooked.has(m) && fed.has(m));
        if (!(await until(all, 15_000))) say('B12: some writes were not seen within 15 s of the last (counted as lost)');
        const hook = waits(answered, hooked);
        const feed = waits(answered, fed);
        figures.webhook.p50.push(percentile(hook.ms, 50));
        figures.webhook.p99.push(percentile(hook.ms, 99));
        figures.webhook.lost.push(hook.lost);
        figures.feed.p50.push(percentile(feed.ms, 50));
        figures.feed.p99.push(percentile(feed.ms, 99));
        figures.feed.lost.push(feed.lost);
        figures.writeP50.push(percentile(writeMs, 50));
        figures.followerPollP50.push(percentile(polls, 50));
        figures.writes.push(answered.size);
        figures.followerRefused.push(refused);
      } finally {
        await stopped(follower);
      }
      const broker = await options.brokerRoundTrip(rate, seconds);
      figures.broker.p50.push(percentile(broker, 50));
      figures.broker.p99.push(percentile(broker, 99));
      say(
        `B12 run ${run + 1}: ${figures.writes.at(-1)} writes; webhook p50/p99 ${figures.webhook.p50.at(-1)!.toFixed(0)}/${figures.webhook.p99.at(-1)!.toFixed(0)} ms, ` +
          `feed ${figures.feed.p50.at(-1)!.toFixed(0)}/${figures.feed.p99.at(-1)!.toFixed(0)} ms, broker ${figures.broker.p50.at(-1)!.toFixed(1)}/${figures.broker.p99.at(-1)!.toFixed(1)} ms`,
      );
    }
    figures.burst.bodyBytes = Math.round(patchBodyBytes.reduce((a, b) => a + b, 0) / Math.max(1, patchBodyBytes.length));

    // ---- 2. A burst of deliveries against the bare POST loop, the order alternating run by run.
    for (let run = 0; run < runs; run++) {
      const kinds = run % 2 === 0 ? (['burst', 'floor'] as const) : (['floor', 'burst'] as const);
      for (const kind of kinds) {
        if (kind === 'floor') {
          const times: number[] = [];
          onArrival = (a) => a.path === '/floor' && times.push(a.at);
          const poster = await startIntegration(['post', `http://127.0.0.1:${port}/floor`, String(options.burst), String(PER_ENDPOINT), String(figures.burst.bodyBytes)], null, () => undefined);
          const code = poster.exitCode ?? (await new Promise<number | null>((resolve) => poster.once('exit', resolve)));
          if (code !== 0) throw new Error(`B12 floor: the POST loop exited with ${code}`);
          await until(() => times.length >= options.burst, 5000);
          figures.burst.floorPerSecond.push(arrivalRate(times));
        } else {
          const { perSecond, recordedSpanMs, arrivalSpanMs } = await burst(system, api, headers, options, run, (handler) => (onArrival = handler));
          figures.burst.perSecond.push(perSecond);
          figures.burst.recordedSpanMs.push(recordedSpanMs);
          figures.burst.arrivalSpanMs.push(arrivalSpanMs);
        }
      }
      say(`B12 burst run ${run + 1}: ${figures.burst.perSecond.at(-1)!.toFixed(0)} deliveries/s, floor ${figures.burst.floorPerSecond.at(-1)!.toFixed(0)} POSTs/s (${options.burst}, ${figures.burst.bodyBytes} B)`);
    }

    // ---- 3. CPU per write: running (webhook off), stopped (queue gone), delivering (webhook on).
    onArrival = () => undefined;
    await setWebhook({ active: false });
    const cpu = cpuTally(options.cpuScope);
    for (let run = 0; run < runs; run++) {
      const order: CostCase[] = run % 2 === 0 ? ['running', 'stopped', 'delivering'] : ['delivering', 'stopped', 'running'];
      for (const kind of order) {
        if (kind === 'stopped') await stopNotifications(system);
        if (kind === 'delivering') await setWebhook({ active: true });
        const mix = await cpu.measure(
          kind,
          () => writeMix(system, api, headers, options, run, kind),
          (r) => r.total,
          (r) => r.startupCpuMs,
        );
        figures.cpu[kind].push(cpu.runs(kind).at(-1)!);
        for (const group of COST_GROUPS) figures.cpu.groups[kind][group].push(cpu.groupRuns(kind, group).at(-1)!);
        figures.cpu.rate[kind].push(mix.total / seconds);
        figures.cpu.notes[kind] = cpu.note(kind);
        if (mix.failed) say(`B12 ${kind}: ${mix.failed} writes not 2xx of ${mix.total} (${mix.codes})`);
        if (kind === 'stopped') await startNotifications(system);
        if (kind === 'delivering') {
          await setWebhook({ active: false });
          await drained(system, webhookId);
        }
        // The next case starts from a quiet system (a restart's start-up, a drain's tail).
        await sleep(1000);
      }
      say(`B12 cost run ${run + 1}: CPU ms per write running ${figures.cpu.running.at(-1)!.toFixed(2)}, stopped ${figures.cpu.stopped.at(-1)!.toFixed(2)}, delivering ${figures.cpu.delivering.at(-1)!.toFixed(2)}`);
    }
    return figures;
  } finally {
    if (webhookId !== undefined) await fetch(`${api}/webhooks/${webhookId}`, { method: 'DELETE', headers }).catch(() => undefined);
    await stopped(receiver);
  }
}

/**
 * Writes at `rate` a second for `seconds`, PATCH and comment in turn (one write per issue in
 * flight): each write's match and when its 2xx came (the answer's headers), and each write's time.
 */
async function steadyWrites(
  api: string,
  headers: Record<string, string>,
  options: WebhookOptions,
  run: number,
  rate: number,
  seconds: number,
): Promise<{ answered: Map<string, number>; writeMs: number[] }> {
  const answered = new Map<string, number>();
  const writeMs: number[] = [];
  const inFlight = new Map<string, Promise<void>>();
  const total = rate * seconds;
  const startedAt = now();
  const writes: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = startedAt + (i * 1000) / rate;
    if (due > now()) await sleep(due - now());
    const patch = i % 2 === 0;
    const n = Math.floor(i / 2);
    const key = patch ? options.patchIssues[n % options.patchIssues.length]!.key : options.commentKeys[n % options.commentKeys.length]!;
    const slot = `${patch ? 'p' : 'c'}${key}`;
    await inFlight.get(slot);
    // At most MAX_IN_FLIGHT writes waiting: a machine too slow for the rate gets fewer writes
    // (reported as the rate reached) rather than the gateway's 429 for too many at once.
    while (inFlight.size >= MAX_IN_FLIGHT) await Promise.race(inFlight.values());
    const write = (async () => {
      const sent = now();
      const res = await fetch(patch ? `${api}/issues/${key}` : `${api}/issues/${key}/comments`, {
        method: patch ? 'PATCH' : 'POST',
        headers,
        body: JSON.stringify(patch ? { title: `B12 wait ${run}.${i}` } : { body: `B12 wait ${run}.${i}` }),
      });
      const at = now();
      const body = (await res.json()) as { key?: string; version?: number; id?: number };
      if (res.status !== (patch ? 200 : 201)) return;
      writeMs.push(at - sent);
      answered.set(patch ? issueMatch(body.key!, body.version!) : commentMatch(body.id!), at);
    })()
      .catch(() => undefined)
      .finally(() => inFlight.delete(slot));
    inFlight.set(slot, write);
    writes.push(write);
  }
  await Promise.all(writes);
  return { answered, writeMs };
}

/** Stops the notifications service and deletes its queue: the broker routes its events nowhere, as if it were not deployed. */
async function stopNotifications(system: BenchSystem): Promise<void> {
  await system.restartNotifications(true);
  const connection = await connect(system.env.AMQP_URL!);
  try {
    const channel = await connection.createChannel();
    await channel.deleteQueue(NOTIFICATIONS_EVENTS_QUEUE);
  } finally {
    await connection.close();
  }
}

/** Starts the notifications service again and waits for its consumer on its queue (declared and bound again at start). */
async function startNotifications(system: BenchSystem): Promise<void> {
  await system.restartNotifications(false);
  const connection = await connect(system.env.AMQP_URL!);
  try {
    const consuming = async () => {
      const channel = await connection.createChannel();
      channel.on('error', () => undefined);
      try {
        return (await channel.checkQueue(NOTIFICATIONS_EVENTS_QUEUE)).consumerCount > 0;
      } catch {
        return false; // not declared yet: checkQueue closes the channel
      } finally {
        await channel.close().catch(() => undefined);
      }
    };
    const deadline = Date.now() + 30_000;
    while (!(await consuming())) {
      if (Date.now() > deadline) throw new Error('B12: the notifications consumer did not come back within 30 s');
      await sleep(50);
    }
  } finally {
    await connection.close();
  }
}

/** Waits (up to 30 s) until the webhook has no delivery pending. */
async function drained(system: BenchSystem, webhookId: number | undefined): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const { n } = (await system.db.query(`SELECT count(*)::int AS n FROM "${NOTIFICATIONS_SCHEMA}".deliveries WHERE webhook_id = $1 AND status = 'pending'`, [webhookId])).rows[0];
    if (n === 0) return;
    await sleep(100);
  }
}

/**
 * Part 2: the service stopped, `options.burst` PATCHes made (10 at a time), the service
 * started again; the deliveries per second from the first arrival to the last, and how long
 * the recording of the events took (first to last `recorded_at`) beside the arrivals' span.
 */
async function burst(
  system: BenchSystem,
  api: string,
  headers: Record<string, string>,
  options: WebhookOptions,
  run: number,
  listen: (handler: (a: Arrival) => void) => void,
): Promise<{ perSecond: number; recordedSpanMs: number; arrivalSpanMs: number }> {
  const expected = new Set<string>();
  const arrived = new Map<string, number>();
  listen((a) => {
    if (a.match && expected.has(a.match) && !arrived.has(a.match)) arrived.set(a.match, a.at);
  });
  await system.restartNotifications(true);
  const newest = (await system.db.query(`SELECT coalesce(max(seq), 0)::text AS seq FROM "${NOTIFICATIONS_SCHEMA}".events`)).rows[0].seq as string;
  let next = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      for (let i = next++; i < options.burst; i = next++) {
        const { key } = options.patchIssues[i % options.patchIssues.length]!;
        const res = await fetch(`${api}/issues/${key}`, { method: 'PATCH', headers, body: JSON.stringify({ title: `B12 burst ${run}.${i} ${Date.now()}` }) });
        const body = (await res.json()) as { key: string; version: number };
        if (res.status === 200) expected.add(issueMatch(body.key, body.version));
      }
    }),
  );
  await sleep(500); // the outbox relay has published them
  await system.restartNotifications(false);
  if (!(await until(() => arrived.size >= expected.size, 60_000))) options.say(`B12 burst: ${expected.size - arrived.size} of ${expected.size} deliveries not arrived within 60 s`);
  const times = [...arrived.values()];
  const recorded = (
    await system.db.query(
      `SELECT (extract(epoch FROM max(recorded_at) - min(recorded_at)) * 1000)::float8 AS ms FROM "${NOTIFICATIONS_SCHEMA}".events WHERE seq > $1::bigint AND type = 'issue.updated'`,
      [newest],
    )
  ).rows[0].ms as number;
  return { perSecond: arrivalRate(times), recordedSpanMs: recorded, arrivalSpanMs: times.length > 1 ? Math.max(...times) - Math.min(...times) : NaN };
}

/**
 * Part 3's write mix, for `seconds`: versioned PATCHes and comments, `rate / 2` a second each,
 * from two load generators (loader.ts, their own processes, 10 connections each): the
 * writes made, the generators' start-up CPU (left out, as B10 does), the writes not 2xx.
 */
async function writeMix(
  system: BenchSystem,
  api: string,
  headers: Record<string, string>,
  options: WebhookOptions,
  run: number,
  kind: CostCase,
): Promise<{ total: number; startupCpuMs: number; failed: number; codes: string }> {
  const keys = options.patchIssues.map((i) => i.key);
  const fresh = await system.db.query(`SELECT key, version FROM "${SCHEMAS.issues}".issues WHERE key = ANY($1::text[])`, [keys]);
  const versions = new Map<string, number>(fresh.rows.map((r) => [r.key as string, r.version as number]));
  const results: LoadResult[] = await Promise.all([
    load({
      kind: 'throughput',
      url: `${api}/issues/{key}`,
      method: 'PATCH',
      headers,
      keys,
      versions: keys.map((k) => versions.get(k) ?? 1),
      body: `{"title":"B12 cost ${kind} ${run}.{version}","version":"{version}"}`,
      connections: 10,
      overallRate: options.rate / 2,
      durationSeconds: options.seconds,
    }),
    load({
      kind: 'throughput',
      url: `${api}/issues/{key}/comments`,
      method: 'POST',
      headers,
      keys: options.commentKeys,
      body: `{"body":"B12 cost ${kind} ${run}"}`,
      connections: 10,
      overallRate: options.rate / 2,
      durationSeconds: options.seconds,
    }),
  ]);
  const total = results.reduce((sum, r) => sum + r.total, 0);
  const ok = (results[0]!.statusCodes['200'] ?? 0) + (results[1]!.statusCodes['201'] ?? 0);
  return {
    total,
    startupCpuMs: results.reduce((sum, r) => sum + (r.startupCpuMs ?? 0), 0),
    failed: total - ok,
    codes: results.map((r) => JSON.stringify(r.statusCodes)).join(' '),
  };
}
