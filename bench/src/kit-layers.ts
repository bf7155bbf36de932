/**
 * What the kit's per-request layers cost, away from the database's noise:
 *   pnpm --dir bench exec tsx src/kit-layers.ts [rounds]
 * Two servers answer GET /api/v1/issues/{key} with the same bytes and no database: a
 * plain express app with that one route, and the same route inside the kit's service app
 * (createServiceApp: request id, access log and metrics, the ticket checked and accepted
 * once, the body layers; replays remembered in the process). The load generator sends
 * each a fixed 2,000 req/s over 10 connections for 4 s in turn, with a ticket made for
 * every request; the servers' CPU per request (from /proc) is printed per round, then
 * the medians and the kit's cost over express, round by round. The first round warms up
 * and is left out. Not part of `pnpm bench`: B1's kit floor measures the same layers
 * with the database behind them.
 */
import { spawn } from 'node:child_process';
import express from 'express';
import { createLogger, createMetrics, createServiceApp, devSigningKey, devTrustedKeysText, inProcessSeenTickets, parseTrustedKeys, sendJsonText, serve } from '@tracker/kit';
import { freePort } from '@tracker/testing';
import { cpuSeconds } from './cpu';
import type { LoadJob } from './loader';
import { median } from './stats';
import { load } from './system';

const KINDS = ['express', 'kit'] as const;
type Kind = (typeof KINDS)[number];
const ROUTE = '/api/v1/issues/:key';
const ANSWER = Buffer.from(JSON.stringify({ id: 1, key: 'Q1-1', title: 'x'.repeat(40), description: 'y'.repeat(300), labels: ['a', 'b'], comments: [] }));

async function server(kind: Kind, port: number): Promise<void> {
  const logger = createLogger('issues', 'warn');
  const answer = (_req: express.Request, res: express.Response) => {
    res.setHeader('ETag', '"1-0123456789abcdef"');
    sendJsonText(res, ANSWER);
  };
  const app =
    kind === 'kit'
      ? createServiceApp({
          name: 'issues',
          keys: { key: devSigningKey('issues'), trusted: parseTrustedKeys(devTrustedKeysText()) },
          seenTickets: inProcessSeenTickets(),
          logger,
          metrics: createMetrics('issues'),
          routes: (router) => router.get(ROUTE, answer),
        })
      : express().get(ROUTE, answer);
  await serve(app, { port, host: '127.0.0.1', logger, graceMs: 100, handleSignals: true });
  process.stdout.write('listening\n');
}

/** CPU time of a process so far, ms. */
const cpuMs = (pid: number) => cpuSeconds(String(pid))! * 1000;

async function measure(rounds: number): Promise<void> {
  const servers = await Promise.all(
    KINDS.map(async (kind) => {
      const port = await freePort();
      const child = spawn(process.execPath, ['--import', 'tsx', __filename, 'serve', kind, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve) => child.stdout!.on('data', (d: Buffer) => d.toString().includes('listening') && resolve()));
      return { kind, url: `http://127.0.0.1:${port}`, child };
    }),
  );
  const user = { kind: 'user' as const, userId: 1, workspaceId: 1, workspaceRole: 'admin' as const, tokenId: 1 };
  const micros: Record<Kind, number[]> = { express: [], kit: [] };
  try {
    for (let round = 0; round <= rounds; round++) {
      for (const { kind, url, child } of round % 2 ? [...servers].reverse() : servers) {
        const job: LoadJob = { kind: 'throughput', url: `${url}/api/v1/issues/Q1-1`, connections: 10, durationSeconds: 4, overallRate: 2000, ticket: { audience: 'issues', user } };
        const before = cpuMs(child.pid!);
        const result = await load(job);
        if (result.statusCodes['200'] !== result.total) throw new Error(`${kind}: not all 200: ${JSON.stringify(result.statusCodes)}`);
        const us = ((cpuMs(child.pid!) - before) / result.total) * 1000;
        if (round > 0) micros[kind].push(us);
        console.log(`round ${round}${round === 0 ? ' (warm-up)' : ''} ${kind}: ${result.requestsPerSecond.toFixed(0)} req/s, ${us.toFixed(0)} µs CPU per request`);
      }
    }
  } finally {
    for (const { child } of servers) child.kill('SIGTERM');
  }
  const over = micros.kit.map((kit, i) => kit - micros.express[i]!);
  console.log(`medians: express ${median(micros.express).toFixed(0)} µs, kit ${median(micros.kit).toFixed(0)} µs; the kit's layers ${median(over).toFixed(0)} µs (by round: ${over.map((v) => v.toFixed(0)).join(' / ')})`);
}

if (process.argv[2] === 'serve') void server(process.argv[3] as Kind, Number(process.argv[4]));
else void measure(Number(process.argv[2] ?? 7)).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
