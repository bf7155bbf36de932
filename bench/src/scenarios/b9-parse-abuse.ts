import fs from 'node:fs';
import { someIssues } from '../issue-picks';
import { say, sleep, type Bench } from '../run';
import { SCHEMAS } from '../seed';
import { median } from '../stats';
import { admin, load, type BenchSystem } from '../system';

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
export async function b9(bench: Bench) {
  const { system, row } = bench;
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
    for (let run = 0; run < bench.runs; run++) {
      const quiet = await probe(bench.seconds);
      p50.unloaded.push(quiet.p50);
      p95.unloaded.push(quiet.p95!);
      // The abuse starts first and ends after the probe: the probe sees it all along.
      const abusing = load({ kind: 'throughput', url: `${system.gateway.url}/api/v1/issues/search`, method: 'POST', headers: abuser, bodyFiles: files.map((f) => f.file), connections: 10, overallRate: rate, durationSeconds: bench.seconds + 2, timeoutSeconds: 30 });
      await sleep(1000);
      const abused = await probe(bench.seconds);
      const sent = await abusing;
      p50.abused.push(abused.p50);
      p95.abused.push(abused.p95!);
      abuse.sent += sent.total;
      abuse.errors += sent.errors + sent.timeouts;
      abuse.p50.push(sent.p50);
      for (const [code, count] of Object.entries(sent.statusCodes)) if (code !== '422') abuse.other[code] = (abuse.other[code] ?? 0) + count;
      say(`B9 run ${run + 1}: victim p50 ${quiet.p50.toFixed(1)} → ${abused.p50.toFixed(1)} ms, p95 ${quiet.p95!.toFixed(1)} → ${abused.p95!.toFixed(1)} ms; abuse ${(sent.total / (bench.seconds + 2)).toFixed(1)} req/s answered, ${JSON.stringify(sent.statusCodes)}, p50 ${sent.p50} ms`);
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

