import { Client } from 'pg';
import { randomBytes } from 'node:crypto';
import { startService, type ServiceProcess, type System } from '@tracker/system-tests-support';

export interface Board {
  token: string;
  workspaceId: number;
  queueId: number;
  statusIds: number[];
  keys: string[];
}

/** A workspace (one operator command: each costs a process start) and its admin's token. */
export async function createWorkspace(system: System): Promise<{ workspaceId: number; token: string }> {
  const ws = await system.admin('workspace', 'create', '--name', `faults-${randomBytes(3).toString('hex')}`, '--admin-name', 'Ada');
  return { workspaceId: ws.workspace_id, token: ws.token };
}

/** A new queue (key `key`) in the workspace with `issues` issues in it. */
export async function seedBoard(system: System, workspace: { workspaceId: number; token: string }, key: string, issues = 0): Promise<Board> {
  const { token } = workspace;
  const queue = await system.api('POST', '/api/v1/queues', { token, body: { key, name: `Queue ${key}` } });
  if (queue.status !== 201) throw new Error(`queue not created: ${queue.status} ${JSON.stringify(queue.body)}`);
  const board: Board = { token, workspaceId: workspace.workspaceId, queueId: queue.body.id, statusIds: queue.body.statuses.map((s: { id: number }) => s.id), keys: [] };
  const created = await Promise.all(
    Array.from({ length: issues }, (_, i) => system.api('POST', '/api/v1/issues', { token, body: { queue_id: board.queueId, title: `seed ${i}` } })),
  );
  for (const answer of created) {
    if (answer.status !== 201) throw new Error(`issue not created: ${answer.status}`);
    board.keys.push(answer.body.key);
  }
  return board;
}

/**
 * The i-th write of a steady mix touching every replicated event type: a new issue
 * (issue.created), a move with a new title (issue.updated), a worklog (worklog.added), a
 * comment (comment.added). Answers the HTTP status.
 */
export async function write(system: System, board: Board, i: number): Promise<number> {
  const { token } = board;
  const key = board.keys[(i * 7) % board.keys.length];
  if (i % 4 === 0 || !key) {
    const created = await system.api('POST', '/api/v1/issues', { token, body: { queue_id: board.queueId, title: `write ${i}`, estimate_minutes: i % 90 } });
    if (created.status === 201) board.keys.push(created.body.key);
    return created.status;
  }
  if (i % 4 === 1) {
    const status_id = board.statusIds[i % board.statusIds.length];
    return (await system.api('PATCH', `/api/v1/issues/${key}`, { token, body: { status_id, title: `moved by ${i}` } })).status;
  }
  if (i % 4 === 2) return (await system.api('POST', `/api/v1/issues/${key}/worklogs`, { token, body: { minutes: 1 + (i % 30) } })).status;
  return (await system.api('POST', `/api/v1/issues/${key}/comments`, { token, body: { body: `comment ${i}` } })).status;
}

export interface Writer {
  /** How many writes have answered so far. */
  done: () => number;
  /** Ends an endless writer after the writes in flight. */
  stop: () => void;
  /** Resolves with every answer's status once all writes answered. */
  finished: Promise<number[]>;
}

/** `count` writes of the mix (endless if Infinity, until stop()), `concurrency` at a time, starting now. */
export function startWriter(system: System, board: Board, count: number, concurrency = 6): Writer {
  const statuses: number[] = [];
  let next = 0;
  let stopped = false;
  const worker = async () => {
    while (next < count && !stopped) {
      const i = next++;
      statuses.push(await write(system, board, i).catch(() => 0));
    }
  };
  const finished = Promise.all(Array.from({ length: concurrency }, worker)).then(() => statuses);
  return { done: () => statuses.length, stop: () => (stopped = true), finished };
}

export async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Unpublished outbox rows of the issues service (or of the access service). */
export async function outboxBacklog(system: System, service: 'issues' | 'access' = 'issues'): Promise<number> {
  const schema = service === 'issues' ? system.issuesSchema.schema : system.schema.schema;
  const [row] = await system.issuesSchema.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".outbox_events WHERE published_at IS NULL`);
  return Number(row!.n);
}

/** The environment startSystem gave the issues service (to restart it). */
export function issuesEnv(system: System): Record<string, string> {
  return { ...system.envOf('issues'), DATABASE_SCHEMA: system.issuesSchema.schema, ACCESS_URL: system.services.access.url };
}

/** Restarts a service on its port (the gateway and the other services know it by that). */
export async function restart(system: System, name: 'issues' | 'statistics', env: Record<string, string>): Promise<ServiceProcess> {
  const service = await startService(name, env, { port: system.services[name].port });
  system.services[name] = service;
  return service;
}

/** A Postgres session of the test's own (advisory locks are per session). */
export async function sqlSession(system: System): Promise<Client> {
  const client = new Client({ connectionString: system.issuesSchema.databaseUrl });
  await client.connect();
  return client;
}

/** Log lines of a service (JSON, one per line) whose msg is `msg`. */
export function logLines(service: ServiceProcess, msg: string): Record<string, unknown>[] {
  return service
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        return {};
      }
    })
    .filter((entry) => entry.msg === msg);
}

/** Lines that show an unhandled failure: error or fatal log lines, uncaught exceptions and rejections. */
export function failureLines(service: ServiceProcess): string[] {
  return service
    .output()
    .split('\n')
    .filter((line) => /"level":"(error|fatal)"|Unhandled|uncaught|^\s+at /i.test(line));
}
