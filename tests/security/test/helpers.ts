import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import type { ApiResponse, System } from '@tracker/system-tests-support';
import type { SeedOp } from './seed-script';

const run = promisify(execFile);
const REPO_ROOT = path.resolve(__dirname, '../../..');

/** Runs operator use cases in one process (see seed-script.ts) against this system's access schema. */
export async function seed(system: System, ops: SeedOp[]): Promise<any[]> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(__dirname, 'seed-script.ts'), JSON.stringify(ops)], {
    cwd: path.join(REPO_ROOT, 'services/access'),
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', ...system.envOf('access') },
    maxBuffer: 10 * 1024 * 1024,
  });
  return JSON.parse(stdout.trim().split('\n').pop()!);
}

export interface Actor {
  id: number;
  token: string;
  /** A second token of this user, already revoked (when asked for). */
  revokedToken?: string;
}

export interface SeededWorkspace {
  id: number;
  admin: Actor;
  users: Record<string, Actor>;
}

/** Workspaces with one admin each plus the named users, in one seeding process. */
export async function seedWorkspaces(
  system: System,
  specs: Array<{ users: Record<string, 'admin' | 'member' | 'member+revoked'> }>,
): Promise<SeededWorkspace[]> {
  const ops: SeedOp[] = specs.map((spec) => ({
    op: 'workspace',
    name: `sec-${randomBytes(3).toString('hex')}`,
    adminName: 'Ada',
    users: Object.entries(spec.users).map(([name, role]) => ({
      name,
      role: role === 'admin' ? ('admin' as const) : ('member' as const),
      revokedToken: role === 'member+revoked',
    })),
  }));
  const results = await seed(system, ops);
  return results.map((r, i) => {
    const names = Object.keys(specs[i]!.users);
    return {
      id: r.workspace_id,
      admin: { id: r.user_id, token: r.token },
      users: Object.fromEntries(
        names.map((name, j) => [name, { id: r.users[j].user_id, token: r.users[j].token, revokedToken: r.users[j].revoked_token }]),
      ),
    };
  });
}

/**
 * A digest of every row a request could change: the access and issues schemas and
 * the dashboards (the statistics replica only follows the issues service's events,
 * which are covered through its outbox). Columns the outbox relay, the cache janitor
 * and the gateways' report of token uses update on their own are left out.
 */
export async function fingerprint(system: System): Promise<Record<string, string>> {
  const sources: Array<[typeof system.schema, string[] | null]> = [
    [system.schema, null],
    [system.issuesSchema, null],
    [system.statisticsSchema, ['dashboards']],
    // Only the webhooks: deliveries and the event log move by themselves, as events arrive.
    [system.notificationsSchema, ['webhooks']],
  ];
  const parts: string[] = [];
  for (const [schema, only] of sources) {
    const columns = await schema.query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1 ORDER BY table_name, ordinal_position`,
      [schema.schema],
    );
    const tables = new Map<string, string[]>();
    for (const { table_name, column_name } of columns) {
      if (only ? !only.includes(table_name) : IGNORED_TABLES.has(table_name)) continue;
      if (IGNORED_COLUMNS.has(column_name)) continue;
      tables.set(table_name, [...(tables.get(table_name) ?? []), `"${column_name}"`]);
    }
    for (const [table, cols] of tables) {
      parts.push(
        `SELECT '${schema.schema}.${table}' AS t, count(*) || ':' || md5(coalesce(string_agg(r, '|' ORDER BY r), '')) AS h ` +
          `FROM (SELECT ROW(${cols.join(',')})::text AS r FROM "${schema.schema}"."${table}") x`,
      );
    }
  }
  const rows = await system.schema.query<{ t: string; h: string }>(parts.join(' UNION ALL '));
  return Object.fromEntries(rows.map((r) => [r.t, r.h]));
}

const IGNORED_TABLES = new Set(['auth_cache_debts']);
const IGNORED_COLUMNS = new Set(['published_at', 'attempts', 'last_error', 'last_used_at']);

/** Sends raw bytes (optionally one chunk every gapMs) and collects the answer until the server closes. */
export function rawExchange(
  port: number,
  chunks: Array<string | Buffer>,
  options: { gapMs?: number; timeoutMs?: number } = {},
): Promise<{ text: string; ms: number; closed: boolean }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    let timer: NodeJS.Timeout | undefined;
    const finish = (closed: boolean) => {
      clearInterval(timer);
      clearTimeout(limit);
      socket.destroy();
      resolve({ text, ms: Date.now() - started, closed });
    };
    const limit = setTimeout(() => finish(false), options.timeoutMs ?? 5000);
    socket.on('data', (d) => (text += d.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => finish(true));
    const queue = [...chunks];
    socket.once('connect', () => {
      if (!options.gapMs) return queue.splice(0).forEach((c) => socket.write(c));
      timer = setInterval(() => {
        const chunk = queue.shift();
        if (chunk === undefined) clearInterval(timer);
        else if (!socket.destroyed) socket.write(chunk);
      }, options.gapMs);
    });
  });
}

export const statusOf = (raw: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);

/** Headers whose values must match between a hidden and a nonexistent object's answer. */
export function comparableHeaders(headers: Headers): Record<string, string> {
  const varying = new Set(['date', 'x-request-id', 'content-length', 'ratelimit-remaining', 'keep-alive', 'connection']);
  return Object.fromEntries([...headers.entries()].filter(([name]) => !varying.has(name)).sort());
}

/** A problem body with the requested identifier masked in its detail, for comparing two answers. */
export function maskedBody(body: any, ...identifiers: Array<string | number>): unknown {
  if (typeof body?.detail !== 'string') return body;
  let detail: string = body.detail;
  for (const id of identifiers) detail = detail.replace(new RegExp(`\\b${String(id).replace(/[-]/g, '\\-')}\\b`, 'g'), '<id>');
  return { ...body, detail };
}

export interface CoreEndpoint {
  method: string;
  path: string;
  rights: string;
}

/** The core operations (docs/decisions.md, Operations), as committed in core-endpoints.txt. */
export const coreEndpoints = (): CoreEndpoint[] => endpointsIn('core-endpoints.txt');

/** Every endpoint: the core operations and those beyond them (extension-endpoints.txt). */
export const allEndpoints = (): CoreEndpoint[] => [...coreEndpoints(), ...endpointsIn('extension-endpoints.txt')];

function endpointsIn(file: string): CoreEndpoint[] {
  return fs
    .readFileSync(path.join(__dirname, file), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [method, p, rights] = line.split(/\s+/);
      return { method: method!, path: p!, rights: rights! };
    });
}

/** Fills an endpoint path's parameters. */
export function fillPath(template: string, params: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (_m, name: string) => {
    if (!(name in params)) throw new Error(`no value for ${name} in ${template}`);
    return encodeURIComponent(String(params[name]));
  });
}

/** Every answer a test saw, for checks over all of them (no token hashes, no foreign data). */
export function recording(system: System) {
  const seen: Array<{ method: string; path: string; res: ApiResponse; text: string }> = [];
  const api: System['api'] = async (method, urlPath, options) => {
    const res = await system.api(method, urlPath, options);
    seen.push({ method, path: urlPath, res, text: typeof res.body === 'string' ? res.body : JSON.stringify(res.body ?? '') });
    return res;
  };
  return { api, seen };
}

/** The body of an answer that must have `status`; anything else fails with the answer in the message. */
export const ok = (res: ApiResponse, status = 200) => {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
};

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until check() returns a truthy value or the time is up (the statistics replica follows events). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value || Date.now() > deadline) return value;
    await sleep(100);
  }
}
