import { cpuTally } from '../cpu';
import type { LoadJob } from '../loader';
import { CPU_METRIC, EXPLAINS, listsFor } from '../rows';
import { say, type Bench } from '../run';
import { SCHEMAS } from '../seed';
import { verifyAlone } from '../sign-in';
import { median } from '../stats';
import { load } from '../system';

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
export async function b10(bench: Bench) {
  const { system, row } = bench;
  const stored = await system.db.query(`SELECT password_hash FROM "${SCHEMAS.access}".users WHERE id = $1`, [system.seeded.userId]);
  const hash = stored.rows[0]?.password_hash as string;
  const job: LoadJob = {
    kind: 'latency',
    url: `${system.gateway.url}/auth/sign-in`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: system.person.email, password: system.person.password }),
    connections: SIGN_IN_CONNECTIONS,
    durationSeconds: bench.seconds,
  };
  // Warm-up, unmeasured: the services' statements prepared and their code compiled.
  await load({ ...job, durationSeconds: 2 });
  await verifyAlone(hash, system.person.password, SIGN_IN_CONNECTIONS, 1);
  const cpu = cpuTally(bench.cpuScope);
  const signIns = listsFor(['rps', 'p50', 'p99'] as const);
  const alone = listsFor(['cpuMs', 'perSecond', 'p50', 'p99'] as const);
  const startups: number[] = [];
  for (let run = 0; run < bench.runs; run++) {
    for (const kind of run % 2 ? (['alone', 'signIn'] as const) : (['signIn', 'alone'] as const)) {
      if (kind === 'alone') {
        const figures = await verifyAlone(hash, system.person.password, SIGN_IN_CONNECTIONS, bench.seconds);
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

