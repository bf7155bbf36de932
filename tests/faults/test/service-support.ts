import { Client } from 'pg';
import type { ServiceProcess, System } from '@tracker/system-tests-support';

/** One request as a load generator saw it: when it started and ended (ms since epoch) and how it was answered. */
export interface Outcome {
  label: string;
  started: number;
  ended: number;
  /** 0 when no answer came within the bound (a hung request) or the connection failed. */
  status: number;
  retryAfter: string | null;
  code?: string;
  body?: any;
}

/** Every request of these tests must be answered within this bound: longer counts as hung. */
export const ANSWER_BOUND_MS = 20_000;

/** A request that never throws: a hang or a broken connection becomes status 0. */
export async function send(
  baseUrl: string,
  method: string,
  path: string,
  options: { token: string; body?: unknown; label?: string },
): Promise<Outcome> {
  const started = Date.now();
  const headers: Record<string, string> = { authorization: `Bearer ${options.token}` };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  try {
    const res = await fetch(baseUrl + path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(ANSWER_BOUND_MS),
    });
    const text = await res.text();
    let body: any = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: kept as text for the failure message
    }
    return { label: options.label ?? path, started, ended: Date.now(), status: res.status, retryAfter: res.headers.get('retry-after'), code: body?.code, body };
  } catch (error) {
    return { label: options.label ?? path, started, ended: Date.now(), status: 0, retryAfter: null, code: (error as Error).name };
  }
}

/**
 * Keeps `concurrency` request loops going until stop() is called; each loop calls
 * `next(i)` for the request to send. stop() waits for the requests in flight.
 */
export function loadLoops(concurrency: number, next: (loop: number, n: number) => Promise<Outcome>) {
  const outcomes: Outcome[] = [];
  let running = true;
  const loops = Array.from({ length: concurrency }, async (_, loop) => {
    for (let n = 0; running; n++) outcomes.push(await next(loop, n));
  });
  return {
    outcomes,
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return outcomes;
    },
  };
}

/** Counts of each status, for readable failure messages. */
export function tally(outcomes: Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[o.status] = (counts[o.status] ?? 0) + 1;
  return counts;
}

/** Log lines of a service at level error or fatal, or mentioning an unhandled rejection or exception. */
export function errorLines(service: ServiceProcess): string[] {
  return service
    .output()
    .split('\n')
    .filter((line) => /"level":"(error|fatal)"/.test(line) || /unhandled|uncaught/i.test(line));
}

/** How many requests for `path` a service has logged (its access log line carries the path). */
export function loggedRequests(service: ServiceProcess, path: string | RegExp): number {
  const pattern = typeof path === 'string' ? new RegExp(`"path":"${path.replace(/[/.]/g, '\\$&')}"`, 'g') : path;
  return service.output().match(pattern)?.length ?? 0;
}

/** Holds a row lock on an issue in the issues schema, so writers of that issue wait (and hold pool connections). */
export async function lockIssueRow(system: System, issueId: number): Promise<{ pid: number; release: () => Promise<void> }> {
  const client = new Client({ connectionString: system.issuesSchema.databaseUrl });
  await client.connect();
  const pid = Number((await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
  await client.query('BEGIN');
  await client.query(`SELECT id FROM "${system.issuesSchema.schema}".issues WHERE id = $1 FOR UPDATE`, [issueId]);
  return {
    pid,
    release: async () => {
      await client.query('ROLLBACK');
      await client.end();
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A queue made by the workspace admin, with one issue per title; returns the queue and the issues' keys and ids. */
export async function queueWithIssues(system: System, token: string, key: string, titles: string[]) {
  const queue = await system.api('POST', '/api/v1/queues', { token, body: { key, name: key } });
  if (queue.status !== 201) throw new Error(`queue ${key}: ${queue.status} ${JSON.stringify(queue.body)}`);
  const issues: Array<{ id: number; key: string }> = [];
  for (const title of titles) {
    const res = await system.api('POST', '/api/v1/issues', { token, body: { queue_id: queue.body.id, title } });
    if (res.status !== 201) throw new Error(`issue in ${key}: ${res.status} ${JSON.stringify(res.body)}`);
    issues.push({ id: res.body.id, key: res.body.key });
  }
  return { queue: queue.body as { id: number; key: string; statuses: Array<{ id: number }> }, issues };
}
