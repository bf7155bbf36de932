/**
 * What the project's per-request layers cost, away from the database's noise:
 *   pnpm --dir bench exec tsx src/layers.ts kit|gateway|agent [rounds]
 *
 * - `kit`: two servers answer GET /api/v1/issues/{key} with the same bytes and no
 *   database: a plain express app with that one route, and the same route inside the
 *   kit's service app (createServiceApp: request id, access log and metrics, the ticket
 *   checked and accepted once, the body layers; replays remembered in the process). The
 *   load generator makes a ticket for every request.
 * - `gateway`: two proxies in front of the same upstream (a bare node:http server
 *   answering those bytes): the express proxy floor B1 measures (floor-server.ts
 *   `express-proxy`: one Redis pipeline, then http-proxy-middleware set up as the
 *   gateway's) and the gateway itself, compiled (its token found in its signed Redis
 *   cache, as a hot token is: authentication, rate limit, the ticket, the headers rewritten).
 * - `agent`: a get_issue tool call (POST /mcp, the gateway's ticket with its proofs)
 *   answered by the MCP SDK alone (floor-server.ts `mcp`: B8's floor, nothing behind it)
 *   and by the agent service, whose call to the issues service a bare node:http server
 *   answers: the agent's layers and its hop to the service.
 *
 * The load generator sends each server a fixed rate (2,000 req/s; tool calls 800) over 10 connections for 4 s
 * in turn; the servers' CPU per request (from /proc) is printed per round, then the
 * medians and ours over the floor, round by round. The first round warms up and is left
 * out. Not part of `pnpm bench`: B1's kit floor and its proxy floors measure the same
 * layers with the database behind them.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { Redis } from 'ioredis';
import { authCacheKey, CACHE_FRESH_KEY, CACHE_FRESH_TTL_MS, hashToken, signCacheEntry } from '@tracker/authz';
import { createLogger, createMetrics, createServiceApp, inProcessSeenTickets, sendJsonText, serve, type UserPrincipal } from '@tracker/kit';
import { devSigningKey, devTrustedKeysText, parseTrustedKeys } from '@tracker/signing';
import { startService } from '@tracker/system-tests-support';
import { freePort } from '@tracker/testing';
import { cpuSeconds } from './cpu';
import type { LoadJob } from './loader';
import { median } from './stats';
import { buildServices, getIssueCall, load, MCP_HEADERS, profileArgs, startHelper } from './system';

const ROUTE = '/api/v1/issues/:key';
/** Requests per second: well under what each server can answer on two cores (a tool call costs about three times a GET). */
const RATE: Record<Pair, number> = { kit: 2000, gateway: 2000, agent: 800 };
const PATH = '/api/v1/issues/Q1-1';
const ANSWER = Buffer.from(JSON.stringify({ id: 1, key: 'Q1-1', title: 'x'.repeat(40), description: 'y'.repeat(300), labels: ['a', 'b'], comments: [] }));
const USER: UserPrincipal = { kind: 'user', userId: 1, workspaceId: 1, workspaceRole: 'admin', tokenId: 1 };
/** Its own Redis database, so the freshness key set here touches nothing else. */
const REDIS_URL = (() => {
  const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  url.pathname = '/7';
  return url.toString();
})();

type Pair = 'kit' | 'gateway' | 'agent';
/** What one server of a pair is: a role of floor-server.ts, or one served by this script. */
type Kind = 'express' | 'kit' | 'express-proxy' | 'gateway' | 'mcp' | 'agent';
const KINDS: Record<Pair, [floor: Kind, ours: Kind]> = { kit: ['express', 'kit'], gateway: ['express-proxy', 'gateway'], agent: ['mcp', 'agent'] };

/** The kit pair's servers, each run by this script in a process of its own (`serve <kind> <port>`). */
async function server(kind: 'express' | 'kit', port: number): Promise<void> {
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

/**
 * A server of `kind` on a free port, in its own process, stopped with the rest: `upstream`
 * is the bare server's URL, `answerFile` what the `mcp` floor answers. The gateway and the
 * agent are the services themselves, compiled, started as the bench starts them (every
 * service they call is the bare server).
 */
async function start(kind: Kind, upstream: string, answerFile: string, cleanups: Array<() => unknown>) {
  if (kind === 'gateway' || kind === 'agent') {
    const upstreams = { ACCESS_URL: upstream, ISSUES_URL: upstream, STATISTICS_URL: upstream };
    const env = { LOG_LEVEL: 'warn', REDIS_URL, ...upstreams, ...(kind === 'gateway' && { AGENT_URL: upstream, RATE_LIMIT_PER_MINUTE: '10000000' }) };
    const service = await startService(kind, env, { nodeArgs: profileArgs(`layers-${kind}`) });
    cleanups.push(() => service.stop());
    return { kind, url: service.url, child: service.child };
  }
  const port = await freePort();
  const child =
    kind === 'express-proxy'
      ? await startHelper('floor-server.ts', [kind, String(port), upstream, REDIS_URL])
      : kind === 'mcp'
        ? await startHelper('floor-server.ts', [kind, String(port), answerFile])
        : await startHelper('layers.ts', ['serve', kind, String(port)]);
  cleanups.push(() => child.kill('SIGTERM'));
  return { kind, url: `http://127.0.0.1:${port}`, child };
}

/** The answer in a file, and a bare node:http server answering it to every request (the gateway's and the agent's upstream). */
async function bareUpstream(cleanups: Array<() => unknown>): Promise<{ upstream: string; answerFile: string }> {
  const answerFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'layers-')), 'answer.json');
  fs.writeFileSync(answerFile, ANSWER);
  const port = await freePort();
  const bare = await startHelper('bare-server.ts', [String(port), answerFile]);
  cleanups.push(() => bare.kill('SIGTERM'), () => fs.rmSync(path.dirname(answerFile), { recursive: true, force: true }));
  return { upstream: `http://127.0.0.1:${port}`, answerFile };
}

/**
 * For the gateway pair: a token the gateway finds in its cache (signed as the access
 * service signs it, the freshness key kept alive as access keeps it), as the header.
 */
async function cachedToken(cleanups: Array<() => unknown>): Promise<Record<string, string>> {
  const token = `trk_${randomBytes(24).toString('hex')}`;
  const redis = new Redis(REDIS_URL);
  const key = authCacheKey(hashToken(token));
  await redis.set(key, signCacheEntry(devSigningKey('access'), key, USER, 3600), 'EX', 3600);
  const keepFresh = () => void redis.set(CACHE_FRESH_KEY, String(Date.now()), 'PX', CACHE_FRESH_TTL_MS);
  keepFresh();
  const timer = setInterval(keepFresh, 1000);
  cleanups.push(() => {
    clearInterval(timer);
    redis.disconnect();
  });
  return { authorization: `Bearer ${token}` };
}

/** The request each server of `pair` gets, as a load job's fields. */
async function requestOf(pair: Pair, cleanups: Array<() => unknown>): Promise<Pick<LoadJob, 'method' | 'headers' | 'body' | 'ticket' | 'check'> & { path: string }> {
  if (pair === 'kit') return { path: PATH, ticket: { audience: 'issues', user: USER } };
  if (pair === 'gateway') return { path: PATH, headers: await cachedToken(cleanups) };
  // A tool's error result is a 200 too: every answer must be the issue.
  const check = { kind: 'mcp-result', id: 1, field: 'key', equals: 'Q1-1' } as const;
  return { path: '/mcp', method: 'POST', headers: MCP_HEADERS, body: getIssueCall('Q1-1'), ticket: { audience: 'agent', user: USER }, check };
}

/** CPU time of a process so far, ms. */
const cpuMs = (pid: number) => cpuSeconds(String(pid))! * 1000;

async function measure(pair: Pair, rounds: number): Promise<void> {
  const cleanups: Array<() => unknown> = [];
  try {
    if (pair !== 'kit') buildServices();
    const { upstream, answerFile } = await bareUpstream(cleanups);
    const { path: requestPath, ...request } = await requestOf(pair, cleanups);
    const servers = [];
    for (const kind of KINDS[pair]) servers.push(await start(kind, upstream, answerFile, cleanups));
    const micros = new Map<Kind, number[]>(KINDS[pair].map((kind) => [kind, []]));
    for (let round = 0; round <= rounds; round++) {
      for (const { kind, url, child } of round % 2 ? [...servers].reverse() : servers) {
        const job: LoadJob = { kind: 'throughput', url: `${url}${requestPath}`, connections: 10, durationSeconds: 4, overallRate: RATE[pair], ...request };
        const before = cpuMs(child.pid!);
        const result = await load(job);
        if (result.statusCodes['200'] !== result.total || result.failedChecks) {
          throw new Error(`${kind}: not all answered: ${JSON.stringify(result.statusCodes)}, ${result.failedChecks} failed checks (${result.firstFailure ?? ''})`);
        }
        const us = ((cpuMs(child.pid!) - before) / result.total) * 1000;
        if (round > 0) micros.get(kind)!.push(us);
        console.log(`round ${round}${round === 0 ? ' (warm-up)' : ''} ${kind}: ${result.requestsPerSecond.toFixed(0)} req/s, ${us.toFixed(0)} µs CPU per request`);
      }
    }
    const [floor, ours] = KINDS[pair].map((kind) => micros.get(kind)!);
    const over = ours!.map((value, i) => value - floor![i]!);
    const [floorKind, ourKind] = KINDS[pair];
    console.log(`medians: ${floorKind} ${median(floor!).toFixed(0)} µs, ${ourKind} ${median(ours!).toFixed(0)} µs; the ${pair}'s layers ${median(over).toFixed(0)} µs (by round: ${over.map((v) => v.toFixed(0)).join(' / ')})`);
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

if (process.argv[2] === 'serve') void server(process.argv[3] as 'express' | 'kit', Number(process.argv[4]));
else {
  const pair = process.argv[2] as Pair;
  if (!Object.hasOwn(KINDS, pair)) throw new Error('usage: layers.ts kit|gateway|agent [rounds]');
  void measure(pair, Number(process.argv[3] ?? 7)).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
