/**
 * B1, reading an issue (GET /api/v1/issues/{key}) directly and through the gateway,
 * against bare node:http and the floors; B2, what the gateway's authentication costs.
 * Measured in the same rounds; B7 overloads at 1.5 × the rate found here.
 */
import fs from 'node:fs';
import { PRINCIPAL_HEADER } from '@tracker/kit';
import { cpuTally } from '../cpu';
import { startFloorChain, startFloorServer } from '../floors';
import { someIssues } from '../issue-picks';
import type { LoadJob } from '../loader';
import { added, CPU_METRIC, EXPLAINS, SERVING_CPU_METRIC } from '../rows';
import { say, type Bench } from '../run';
import { SCHEMAS } from '../seed';
import { median } from '../stats';
import { load, sessionToken, signIn, startHelper } from '../system';

export async function b1b2(bench: Bench): Promise<number> {
  const { system, cleanups, row } = bench;
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
  const floorArgs = [bodyFile, bench.databaseUrl, SCHEMAS.issues, system.env.REDIS_URL!, String(system.seeded.workspaceId), issue!.key];
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
  const session = bench.wants('B2') ? await signIn(system) : '';
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
    ...(bench.wants('B2') && {
      authenticated: () => ({ url: unrouted, headers: token, expect: '404' }),
      sessionAuthenticated: () => ({ url: unrouted, headers: { authorization: `Bearer ${pageToken}` }, expect: '404' }),
      refused: () => ({ url: unrouted, headers: malformed, expect: '401' }),
    }),
  };
  const rps: Record<string, number[]> = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
  const cpu = cpuTally(bench.cpuScope);
  const p50: Record<'direct' | 'gateway', number[]> = { direct: [], gateway: [] };
  for (let run = 0; run < bench.runs; run++) {
    if (session) {
      pageToken = await sessionToken(system, session);
      if (pageToken.length !== system.seeded.token.length) say(`B2: the session token has ${pageToken.length} characters, the personal token ${system.seeded.token.length}`);
    }
    for (const name of Object.keys(targets)) {
      const { expect, ...t } = targets[name]!();
      const result = await cpu.measure(name, () => load({ kind: 'throughput', ...t, connections: 10, durationSeconds: bench.seconds }), (r) => r.total);
      if (result.statusCodes[expect] !== result.total) say(`B1/B2 ${name}: not all ${expect}: ${JSON.stringify(result.statusCodes)}`);
      rps[name]!.push(result.requestsPerSecond);
    }
    // The hop: one client at a time, so queueing does not hide it.
    for (const name of ['direct', 'gateway'] as const) {
      const { expect: _expect, ...t } = targets[name]!();
      const result = await load({ kind: 'latency', ...t, connections: 1, durationSeconds: Math.max(2, bench.seconds / 2) });
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

