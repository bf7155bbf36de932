/**
 * B8, the MCP tool get_issue through the gateway's /mcp against the same issue read by
 * REST, and against the MCP SDK answering alone (the floor).
 */
import fs from 'node:fs';
import { answerProblem } from '../checks';
import { cpuTally } from '../cpu';
import { startFloorChain } from '../floors';
import { someIssues } from '../issue-picks';
import type { LoadJob } from '../loader';
import { CPU_METRIC, EXPLAINS } from '../rows';
import { say, type Bench } from '../run';
import { costRatios, median } from '../stats';
import { getIssueCall, load, MCP_HEADERS } from '../system';

export async function b8(bench: Bench) {
  const { system, cleanups, row } = bench;
  const [issue] = await someIssues(system, 1, 5); // B1's issue
  const key = issue!.key;
  const token = { authorization: `Bearer ${system.seeded.token}` };
  const mcpBody = getIssueCall(key);
  const targets = {
    rest: { url: `${system.gateway.url}/api/v1/issues/${key}`, headers: token, check: { kind: 'json-object', field: 'key', equals: key } },
    mcp: { url: `${system.gateway.url}/mcp`, method: 'POST', headers: { ...token, ...MCP_HEADERS }, body: mcpBody, check: { kind: 'mcp-result', id: 1, field: 'key', equals: key } },
  } satisfies Record<string, Omit<LoadJob, 'kind' | 'connections' | 'durationSeconds'>>;

  // Once before any load: the tool answers what REST answers, or nothing here is worth measuring.
  const rest = await fetch(targets.rest.url, { headers: targets.rest.headers });
  const restBody = (await rest.json()) as Record<string, unknown>;
  const mcp = await fetch(targets.mcp.url, { method: 'POST', headers: targets.mcp.headers, body: mcpBody });
  const mcpText = await mcp.text();
  const problem = answerProblem(targets.mcp.check, mcp.status, mcpText);
  if (rest.status !== 200 || problem) throw new Error(`B8: REST answered ${rest.status}; MCP: ${problem ?? 'ok'}`);
  const structured = (JSON.parse(mcpText) as { result: { structuredContent: unknown } }).result.structuredContent;
  if (JSON.stringify(structured) !== JSON.stringify(restBody)) throw new Error('B8: the tool\'s structuredContent is not the REST answer');
  say(`B8: ${mcp.headers.get('content-type')}, ${Buffer.byteLength(mcpText)} bytes per tool answer against ${Buffer.byteLength(JSON.stringify(restBody))} bytes of REST`);

  // The SDK's floor (floor-server.ts mcp): the same tool call answered by the SDK alone,
  // reached through a bare hop (floor-server.ts proxy: one Redis call, a keep-alive
  // forward), as the agent is a hop of its own between the gateway and the service.
  const answerFile = `/tmp/bench-mcp-answer-${process.pid}.json`;
  fs.writeFileSync(answerFile, JSON.stringify(restBody));
  cleanups.push(async () => fs.rmSync(answerFile, { force: true }));
  const sdk = await startFloorChain(system, 'mcp', [answerFile], cleanups);
  const sdkTarget = { url: `${sdk.proxy}/mcp`, method: 'POST', headers: MCP_HEADERS, body: mcpBody, check: { kind: 'mcp-result', id: 1, field: 'key', equals: key } } as const;

  // B1's gateway settings: 10 connections, the same duration; a short unmeasured warm-up
  // first (the agent is otherwise cold in the first run), then both sides in turn, the
  // order alternating from run to run.
  const job = (name: keyof typeof targets, seconds: number): LoadJob => ({ kind: 'throughput', ...targets[name], connections: 10, durationSeconds: seconds });
  for (const name of ['rest', 'mcp'] as const) await load(job(name, 2));
  await load({ kind: 'throughput', ...sdkTarget, connections: 10, durationSeconds: 2 });
  const rps: Record<keyof typeof targets, number[]> = { rest: [], mcp: [] };
  const bad: Record<keyof typeof targets, { answers: number; failed: number; first?: string }> = { rest: { answers: 0, failed: 0 }, mcp: { answers: 0, failed: 0 } };
  const cpu = cpuTally(bench.cpuScope);
  for (let run = 0; run < bench.runs; run++) {
    for (const name of run % 2 ? (['mcp', 'rest'] as const) : (['rest', 'mcp'] as const)) {
      const result = await cpu.measure(name, () => load(job(name, bench.seconds)), (r) => r.total);
      rps[name].push(result.requestsPerSecond);
      bad[name].answers += result.total;
      // Answers that failed the check (status, JSON-RPC error, isError, another issue) and no answer at all.
      bad[name].failed += result.failedChecks + result.errors + result.timeouts;
      bad[name].first ??= result.firstFailure ?? (result.errors + result.timeouts ? `${result.errors} errors, ${result.timeouts} timeouts` : undefined);
    }
    await cpu.measure('sdk', () => load({ kind: 'throughput', ...sdkTarget, connections: 10, durationSeconds: bench.seconds }), (r) => r.total);
    say(`B8 run ${run + 1}: REST ${rps.rest.at(-1)!.toFixed(0)}, MCP ${rps.mcp.at(-1)!.toFixed(0)} req/s; CPU ${cpu.runs('rest').at(-1)!.toFixed(2)} vs ${cpu.runs('mcp').at(-1)!.toFixed(2)} ms per request${bad.mcp.failed || bad.rest.failed ? `; FAILED CHECKS: MCP ${bad.mcp.failed}, REST ${bad.rest.failed} (${bad.mcp.first ?? bad.rest.first})` : ''}`);
  }
  const clean = bad.mcp.failed === 0 && bad.rest.failed === 0;
  const scenario = 'B8 get_issue tool via gateway /mcp';
  const restRps = median(rps.rest);
  const restCpu = median(cpu.runs('rest'));
  const ratios = costRatios({ rps: restRps, cpuMs: restCpu }, { rps: median(rps.mcp), cpuMs: median(cpu.runs('mcp')) });
  row({
    scenario,
    metric: 'req/s (10 conn.)',
    runs: rps.mcp,
    ceilingName: 'GET /issues/{key} via gateway',
    ceiling: restRps,
    ratio: ratios.throughput,
    target: '≤ 1.3× (REST ÷ MCP)',
    met: (_v, r) => clean && r! <= 1.3,
    note: `REST: ${rps.rest.map((r) => r.toFixed(0)).join(' / ')}`,
  });
  row({
    scenario,
    metric: CPU_METRIC,
    runs: cpu.runs('mcp'),
    ceilingName: 'REST via gateway, ms per request',
    ceiling: restCpu,
    ratio: ratios.cpu,
    target: '≤ 1.3× (MCP ÷ REST)',
    met: (_v, r) => clean && r! <= 1.3,
    note: `${cpu.note('mcp')}; REST: ${cpu.runs('rest').map((r) => r.toFixed(2)).join(' / ')}, ${cpu.note('rest')}`,
  });
  row({
    scenario,
    metric: 'tool calls not answered 200 with a JSON-RPC result',
    value: bad.mcp.failed,
    runs: [],
    ceilingName: '',
    ceiling: null,
    target: '0',
    met: () => clean,
    note: `of ${bad.mcp.answers} tool calls${bad.mcp.first ? `, first: ${bad.mcp.first.replace(/\|/g, '/')}` : ''}; REST: ${bad.rest.failed} of ${bad.rest.answers} not a 200 with the issue${bad.rest.first ? ` (${bad.rest.first.replace(/\|/g, '/')})` : ''}`,
  });
  // What the agent itself costs per call, beside the SDK answering the same call with nothing behind it.
  row({
    scenario: 'B8 the agent service alone',
    metric: 'CPU ms per tool call',
    runs: cpu.groupRuns('mcp', 'agent'),
    ceilingName: 'floor: the MCP SDK alone (stateless, JSON answers)',
    ceiling: median(cpu.groupRuns('sdk', 'floor mcp')),
    target: EXPLAINS,
    met: () => null,
  });
  // The least a tool call can cost: the REST request it wraps plus the SDK answering it,
  // then the same with the bare hop in front of the SDK (a hop of the agent's own: one
  // request received and one sent, one Redis call).
  const sdkRuns = cpu.groupRuns('sdk', 'floor mcp');
  const hopRuns = cpu.groupRuns('sdk', 'floor proxy');
  row({
    scenario: 'B8 floor: the REST request plus the MCP SDK alone',
    metric: CPU_METRIC,
    runs: cpu.runs('rest').map((rest, i) => rest + sdkRuns[i]!),
    ceilingName: 'REST via gateway, ms per request',
    ceiling: restCpu,
    target: EXPLAINS,
    met: () => null,
  });
  row({
    scenario: 'B8 floor: the REST request, a bare hop and the MCP SDK',
    metric: CPU_METRIC,
    runs: cpu.runs('rest').map((rest, i) => rest + sdkRuns[i]! + hopRuns[i]!),
    ceilingName: 'REST via gateway, ms per request',
    ceiling: restCpu,
    target: EXPLAINS,
    met: () => null,
    note: `the hop ${hopRuns.map((r) => r.toFixed(2)).join(' / ')} ms, the SDK ${sdkRuns.map((r) => r.toFixed(2)).join(' / ')} ms`,
  });
}

