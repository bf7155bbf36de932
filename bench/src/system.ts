/** Starts the services for the benchmark (as processes, quiet logs) on the seeded database. */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { verify } from '@node-rs/argon2';
import { Client } from 'pg';
import { issueTicket, type UserPrincipal } from '@tracker/kit';
import { devSigningKey, devTrustedKeysText, parseTrustedKeys, type Signer } from '@tracker/signing';
import { startService, type ServiceName, type ServiceProcess } from '@tracker/system-tests-support';
import { freePort } from '@tracker/testing';
import type { LoadJob, LoadResult } from './loader';
import { ensureDatabase, NOTIFICATIONS_SCHEMA, readSeeded, REPO_ROOT, resetNotificationsSchema, resetSchemas, SCHEMAS, seedIssues, vacuumDatabase, writeSeeded, type Seeded } from './seed';
import { sessionCookieOf, setupCodeOf } from './sign-in';

const run = promisify(execFile);

export interface BenchOptions {
  databaseUrl: string;
  redisUrl: string;
  amqpUrl: string;
  issues: number;
  queues: number;
}

export interface BenchSystem {
  db: Client;
  seeded: Seeded;
  env: Record<string, string>;
  access: ServiceProcess;
  issues: ServiceProcess;
  statistics: ServiceProcess;
  /** The agent tool interface (MCP at /mcp), behind the gateway (B8). */
  agent: ServiceProcess;
  /** The public event log and its feed (GET /api/v1/events), a second consumer of the events. */
  notifications: ServiceProcess;
  gateway: ServiceProcess;
  /** The web pages (B11), the gateway's WEB_URL. */
  web: ServiceProcess;
  statisticsEnv: Record<string, string>;
  /** The env each service was started with (B0 starts more copies of them). */
  envs: Record<ServiceName, Record<string, string>>;
  /** The seeded admin, as the gateway vouches for them when a service is called directly. */
  principal: UserPrincipal;
  /** The seeded admin's sign-in (B2's session token, B10), set through a setup link by the seeding. */
  person: typeof BENCH_PERSON;
  /**
   * The ticket header for calling a service directly with one request (principal.ts: a
   * ticket is bound to its method, path, body and service, and accepted once): signed
   * with the gateway's development key, which the services trust as the bench runs them
   * (no INTERNAL_SIGNING_KEY / INTERNAL_TRUSTED_KEYS: development keys).
   */
  ticket: (audience: Signer, method: string, path: string, body?: string) => string;
  queueIds: number[];
  /** Restarts the statistics service (B6 backlog). */
  restartStatistics: (stop: boolean) => Promise<void>;
  /** Stops (true) or starts again on its port (false) the notifications service (B12). */
  restartNotifications: (stop: boolean) => Promise<void>;
  /** Every process this run started, for /proc sampling. */
  stop: () => Promise<void>;
}

export const EXCHANGE = 'tracker.events.bench';

/**
 * The seeded admin's email and password. Not a secret: the bench's database is a local
 * one of its own, and the password is set there through a setup link as a person sets theirs.
 */
export const BENCH_PERSON = { email: 'bench-admin@bench.invalid', password: 'bench admin password, not a secret' } as const;
export const EVENTS_QUEUE = 'statistics.events.bench';
export const NOTIFICATIONS_EVENTS_QUEUE = 'notifications.events.bench';

const say = (text: string) => process.stderr.write(`[bench] ${text}\n`);

export async function startBenchSystem(options: BenchOptions): Promise<BenchSystem> {
  await ensureDatabase(options.databaseUrl);
  const db = new Client({ connectionString: options.databaseUrl });
  await db.connect();
  // No INTERNAL_SIGNING_KEY / INTERNAL_TRUSTED_KEYS: every service signs and trusts with
  // the development keys (never accepted in production), as on a developer's machine.
  const env = {
    AMQP_URL: options.amqpUrl,
    EVENTS_EXCHANGE: EXCHANGE,
    EVENTS_QUEUE,
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl,
    LOG_LEVEL: 'warn',
  };
  let seeded = await readSeeded(db);
  const reseed = !seeded || seeded.issues !== options.issues;
  if (reseed) {
    say(`seeding ${options.issues} issues in ${options.queues} queues (once; later runs reuse them)`);
    await resetSchemas(db);
  }
  const started: ServiceProcess[] = [];
  const envs = {} as Record<ServiceName, Record<string, string>>;
  const start = async (name: ServiceName, extra: Record<string, string>) => {
    envs[name] = { ...env, ...extra };
    const service = await startService(name, envs[name], { readyTimeoutMs: 60_000, nodeArgs: [...profileArgs(name), ...FULL_GC_TRACE] });
    started.push(service);
    return service;
  };
  try {
    const access = await start('access', { DATABASE_SCHEMA: SCHEMAS.access });
    const issues = await start('issues', { DATABASE_SCHEMA: SCHEMAS.issues, ACCESS_URL: access.url });
    // The event log is made afresh each run: it holds only what the run writes.
    await resetNotificationsSchema(db);
    // B12's webhook receivers listen on 127.0.0.1, which deliveries may reach only when allowed.
    // WEBHOOK_POLL_INTERVAL_MS is left at its default (250 ms): B12 measures what it gives.
    const notifications = await start('notifications', {
      DATABASE_SCHEMA: NOTIFICATIONS_SCHEMA,
      ACCESS_URL: access.url,
      EVENTS_QUEUE: NOTIFICATIONS_EVENTS_QUEUE,
      WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
    });
    const upstreams = { ACCESS_URL: access.url, ISSUES_URL: issues.url, NOTIFICATIONS_URL: notifications.url };
    // Statistics comes later (after the replica is seeded); its URL is known now.
    const statisticsPort = await freePort();
    const statisticsUrl = `http://127.0.0.1:${statisticsPort}`;
    // The agent needs no database: only the services its tools call (and Redis, for replay
    // checks). B8 loads it with one token from 10 connections: its per-user bound is raised
    // past them, so the tool calls are measured, not their refusals.
    envs.agent = { LOG_LEVEL: env.LOG_LEVEL, REDIS_URL: env.REDIS_URL, ...upstreams, STATISTICS_URL: statisticsUrl, TOOL_CALLS_IN_FLIGHT_PER_USER: '1000' };
    const agent = await startService(
      'agent',
      envs.agent,
      { readyTimeoutMs: 60_000, nodeArgs: profileArgs('agent') },
    );
    started.push(agent);
    // A high limit: the rate limit's Redis counting is measured, its 429s are not.
    const web = await startService('web', { LOG_LEVEL: env.LOG_LEVEL }, { readyTimeoutMs: 60_000 });
    started.push(web);
    const gatewayEnv = { ...upstreams, STATISTICS_URL: statisticsUrl, AGENT_URL: agent.url, WEB_URL: web.url, RATE_LIMIT_PER_MINUTE: '10000000' };
    const gateway = await start('gateway', gatewayEnv);

    if (reseed) {
      const ws = await admin(env, 'workspace', 'create', '--name', 'Bench', '--admin-name', 'Bench Admin');
      for (let n = 1; n <= options.queues; n++) {
        const res = await fetch(`${gateway.url}/api/v1/queues`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ws.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ key: `Q${n}`, name: `Queue ${n}` }),
        });
        if (res.status !== 201) throw new Error(`queue ${n}: ${res.status} ${await res.text()}`);
      }
      const startedAt = Date.now();
      await seedIssues(db, ws.workspace_id, ws.user_id, options.issues);
      say(`seeded in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
      seeded = { issues: options.issues, workspaceId: ws.workspace_id, userId: ws.user_id, token: ws.token };
      await writeSeeded(db, seeded);
    }
    const s = seeded!;
    await seedPerson(db, env, gateway.url, s.userId);
    // Seeded now or by an earlier run (whose writes left dead rows): vacuumed as autovacuum would have.
    await vacuumDatabase(db);
    const statisticsEnv = { ...env, DATABASE_SCHEMA: SCHEMAS.statistics, ACCESS_URL: access.url, ISSUES_URL: issues.url };
    envs.statistics = statisticsEnv;
    let statistics = await startService('statistics', statisticsEnv, { port: statisticsPort, readyTimeoutMs: 60_000, nodeArgs: profileArgs('statistics') });
    started.push(statistics);
    const principal: UserPrincipal = { kind: 'user', userId: s.userId, workspaceId: s.workspaceId, workspaceRole: 'admin', tokenId: 1 };
    const gatewayKeys = { key: devSigningKey('gateway'), trusted: parseTrustedKeys(devTrustedKeysText()) };
    const queueIds = (await db.query(`SELECT id FROM "${SCHEMAS.issues}".queues WHERE workspace_id = $1 ORDER BY id`, [s.workspaceId])).rows.map((r) => r.id as number);

    const system: BenchSystem = {
      db,
      seeded: s,
      env,
      access,
      issues,
      statistics,
      agent,
      notifications,
      gateway,
      web,
      statisticsEnv,
      envs,
      principal,
      person: BENCH_PERSON,
      ticket: (audience, method, path, body) =>
        issueTicket(gatewayKeys, { audience, method, path, body: body === undefined ? undefined : Buffer.from(body), user: principal }),
      queueIds,
      restartStatistics: async (stop) => {
        if (stop) {
          await system.statistics.stop('SIGTERM');
          return;
        }
        statistics = await startService('statistics', statisticsEnv, { port: statisticsPort, readyTimeoutMs: 60_000, nodeArgs: profileArgs('statistics') });
        started.push(statistics);
        system.statistics = statistics;
      },
      restartNotifications: async (stop) => {
        if (stop) {
          await system.notifications.stop('SIGTERM');
          return;
        }
        const again = await startService('notifications', envs.notifications, { port: system.notifications.port, readyTimeoutMs: 60_000, nodeArgs: [...profileArgs('notifications'), ...FULL_GC_TRACE] });
        started.push(again);
        system.notifications = again;
      },
      stop: async () => {
        await Promise.all(started.map((p) => p.stop('SIGTERM')));
        await db.end();
      },
    };
    return system;
  } catch (err) {
    await Promise.all(started.map((p) => p.stop('SIGKILL')));
    await db.end();
    throw err;
  }
}

/**
 * Access, issues and the gateway (the services B7 watches) print one line after each full
 * collection of their heap, with the heap in use after it: B7 reads it from their output.
 * Under load such collections come seconds apart, and no line is printed for the frequent
 * young-generation ones.
 */
const FULL_GC_TRACE = ['--trace-gc', '--trace-gc-ignore-scavenger'];

/**
 * BENCH_CPU_PROFILE=issues,gateway (any of access, issues, statistics, agent, gateway, or
 * floor-<role> for a floor server of floor-server.ts): those processes run with V8's CPU
 * profiler and write a .cpuprofile into bench/results/profiles/<name> when stopped (open
 * in Chrome DevTools). The profile covers the whole process, start-up included; the file
 * of the main thread ends in .0.001.
 */
export function profileArgs(name: string): string[] {
  const wanted = (process.env.BENCH_CPU_PROFILE ?? '').split(',').map((s) => s.trim());
  return wanted.includes(name) ? ['--cpu-prof', `--cpu-prof-dir=${path.join(REPO_ROOT, 'bench', 'results', 'profiles', name)}`] : [];
}

/** `pnpm -s admin <args> --json` against the bench's access schema; the parsed last line. */
export async function admin(env: Record<string, string>, ...args: string[]): Promise<any> {
  const { stdout } = await run('pnpm', ['-s', 'admin', ...args, '--json'], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, DATABASE_SCHEMA: SCHEMAS.access, LOG_LEVEL: 'silent' },
  });
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!);
}

/**
 * The seeded admin gets BENCH_PERSON's email and password as a person does: the operator's
 * setup link (`user setup-link --email`), then its form, POST /auth/setup through the
 * gateway. Once per database: a later run finds the email and a hash the password verifies
 * against (an earlier seeding's), and changes nothing.
 */
async function seedPerson(db: Client, env: Record<string, string>, gatewayUrl: string, userId: number): Promise<void> {
  const user = (await db.query(`SELECT email_key, password_hash FROM "${SCHEMAS.access}".users WHERE id = $1`, [userId])).rows[0];
  if (user?.email_key === BENCH_PERSON.email && user.password_hash && (await verify(user.password_hash, BENCH_PERSON.password).catch(() => false))) return;
  const link = await admin(env, 'user', 'setup-link', '--user', String(userId), '--email', BENCH_PERSON.email);
  const res = await fetch(`${gatewayUrl}/auth/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code: setupCodeOf(link.setup_url), password: BENCH_PERSON.password }),
  });
  if (res.status !== 204) throw new Error(`POST /auth/setup answered ${res.status}: ${await res.text()}`);
  say(`the seeded admin signs in as ${BENCH_PERSON.email} (password set through a setup link)`);
}

/** POST /auth/sign-in through the gateway as the seeded admin: the session, as the Cookie header sends it. */
export async function signIn(system: Pick<BenchSystem, 'gateway' | 'person'>): Promise<string> {
  const res = await fetch(`${system.gateway.url}/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: system.person.email, password: system.person.password }),
  });
  if (res.status !== 204) throw new Error(`POST /auth/sign-in answered ${res.status}: ${await res.text()}`);
  return sessionCookieOf(res.headers.getSetCookie());
}

/** POST /auth/token with the session's cookie: a new bearer token of the session, good for 15 minutes. */
export async function sessionToken(system: Pick<BenchSystem, 'gateway'>, cookie: string): Promise<string> {
  const res = await fetch(`${system.gateway.url}/auth/token`, { method: 'POST', headers: { cookie } });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`POST /auth/token answered ${res.status}: ${body}`);
  return (JSON.parse(body) as { access_token: string }).access_token;
}

/** One load job in its own process (loader.ts), so its CPU is not the measured server's. */
export async function load(job: LoadJob): Promise<LoadResult> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(__dirname, 'loader.ts'), JSON.stringify(job)], {
    maxBuffer: 16 * 1024 * 1024,
    timeout: (job.durationSeconds + 60) * 1000,
  });
  return JSON.parse(stdout.trim().split('\n').pop()!) as LoadResult;
}

/** The services compiled, as `pnpm start` and the images run them (startService starts dist/main.js). */
export function buildServices(): void {
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'build.mjs')], { stdio: ['ignore', 'ignore', 'inherit'] });
}

/** The MCP request as an agent sends it without an initialize handshake (stateless transport, JSON answers). */
export const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
} as const;

/** The body of a get_issue tool call (JSON-RPC id 1). */
export const getIssueCall = (key: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_issue', arguments: { key } } });

/** A helper process (bare server) that prints "listening" when ready. */
export async function startHelper(script: string, args: string[]): Promise<ChildProcess> {
  // A floor server is profiled as `floor-<role>` (BENCH_CPU_PROFILE=floor-express-proxy, say),
  // a server of layers.ts as `layers-<kind>` (layers-gateway).
  const profiled = script === 'floor-server.ts' ? profileArgs(`floor-${args[0]}`) : script === 'layers.ts' ? profileArgs(`layers-${args[1]}`) : [];
  const child = spawn(process.execPath, [...profiled, '--import', 'tsx', path.join(__dirname, script), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('listening') && resolve());
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return child;
}

/** Resident memory of a process in MiB (Linux /proc). */
export function rssMiB(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    return kb / 1024;
  } catch {
    return NaN;
  }
}
