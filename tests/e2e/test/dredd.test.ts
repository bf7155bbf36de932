import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { API_OPERATIONS, OPENAPI_PATH } from '@tracker/contracts';
import { operationFor, pollUntil, startSystem, type System } from '@tracker/system-tests-support';

/**
 * Dredd (npm dredd, pinned in package.json), given the published document alone, runs
 * every operation's documented example against a fresh system: the request the document
 * gives, and the answer must be what it documents (status, Content-Type literally, the
 * example's keys). The only help is the world the examples name, made here before Dredd
 * starts, and the bearer token Dredd sends with every request. Dredd runs in a process of
 * its own (../dredd/run.cjs), which writes every transaction it ran as JSON.
 */
const run = promisify(execFile);
const RUNNER = path.join(__dirname, '../dredd/run.cjs');

interface DreddTest {
  status: 'pass' | 'fail' | 'skip' | 'error';
  /** "METHOD (expected status) URI" */
  title: string;
  origin?: { resourceName?: string; actionName?: string; exampleName?: string };
  message?: string;
  expectedStatus?: string;
  actualStatus?: number;
  actualHeaders?: Record<string, string>;
  actualBody?: string;
  request?: { method: string; uri: string; headers: Record<string, string>; body: string };
  error?: string;
}
interface DreddResult {
  tests: DreddTest[];
  stats: { tests: number; failures: number; errors: number; passes: number; skipped: number; duration: number } | null;
  error: string | null;
}

/**
 * The world the document's examples name, on a fresh system (every system has schemas
 * of its own, so every id starts at 1): workspace 1 "Acme"; user 1 Ada, its admin
 * (ada@example.com); user 2 Bob, a member without an email; their personal tokens 1 and
 * 2, the operator's; queue 1 WEB "Website" with the standard statuses 1–5; issue WEB-1
 * (id 1, version 1) with a comment and a worklog; dashboard 1, Ada's. Then Ada signs in
 * through her setup link, as a person does, and her page's token (token 3) is the one
 * Dredd sends: POST /api/v1/tokens takes no personal token, and the other operations
 * take either.
 */
async function makeWorld(system: System) {
  const acme = await system.admin('workspace', 'create', '--name', 'Acme', '--admin-name', 'Ada', '--admin-email', 'ada@example.com');
  const bob = await system.admin('user', 'add', '--workspace', String(acme.workspace_id), '--name', 'Bob');
  const token: string = acme.token;
  const api = async (method: string, urlPath: string, body: unknown, status: number) => {
    const res = await system.api(method, urlPath, { token, body });
    if (res.status !== status) throw new Error(`${method} ${urlPath}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  // As the document's examples show them (libs/contracts/src/examples.ts); Dredd compares keys, not values.
  const queue = await api('POST', '/api/v1/queues', { key: 'WEB', name: 'Website', description: 'Bugs and requests for the public website' }, 201);
  const issue = await api(
    'POST',
    '/api/v1/issues',
    {
      queue_id: queue.id,
      title: 'Login fails in Firefox',
      description: 'Clicking "Sign in" does nothing in Firefox 128.',
      assignee_id: acme.user_id,
      priority: 'high',
      type: 'bug',
      labels: ['frontend'],
      estimate_minutes: 120,
    },
    201,
  );
  const comment = await api('POST', `/api/v1/issues/${issue.key}/comments`, { body: 'Reproduced on staging.' }, 201);
  const worklog = await api('POST', `/api/v1/issues/${issue.key}/worklogs`, { minutes: 30, description: 'Investigation' }, 201);
  const dashboard = await api('POST', '/api/v1/dashboards', { name: 'Website', widgets: [{ type: 'stats' }] }, 201);
  const world = {
    workspace: acme.workspace_id,
    ada: acme.user_id,
    bob: bob.user_id,
    queue: queue.id,
    statuses: queue.statuses.map((s: { id: number }) => s.id),
    issue: { id: issue.id, key: issue.key, version: issue.version },
    comment: comment.id,
    worklog: worklog.id,
    dashboard: dashboard.id,
  };
  // Statistics answer from a replica fed by events: wait until it holds the world.
  const stats = await pollUntil(
    () => system.api('POST', '/api/v1/statistics', { token, body: {} }),
    (r) => r.status === 200 && r.body.total === 1 && r.body.time.spent_minutes === 30,
    15_000,
  );
  if (stats.status !== 200 || stats.body.total !== 1) throw new Error(`the statistics replica did not catch up: ${stats.status} ${JSON.stringify(stats.body)}`);
  const pageToken = await signIn(system, acme.setup_url);
  const tokens = await api('GET', '/api/v1/tokens', undefined, 200);
  return { token: pageToken, world: { ...world, tokens: tokens.map((t: { id: number; name: string }) => [t.id, t.name]) } };
}

/** Ada's way in, as her browser takes it on the gateway's own page: the setup link's form, then a page's token. */
async function signIn(system: System, setupUrl: string): Promise<string> {
  const headers = { origin: system.gatewayUrl, 'sec-fetch-site': 'same-origin' };
  const code = new URL(setupUrl).hash.replace(/^#code=/, '');
  const setUp = await system.api('POST', '/auth/setup', { headers, body: { code, password: 'correct horse battery staple' } });
  const cookie = /^trk_session=([^;]+);/.exec(setUp.headers.get('set-cookie') ?? '')?.[1];
  if (setUp.status !== 204 || !cookie) throw new Error(`POST /auth/setup: ${setUp.status} ${JSON.stringify(setUp.body)}`);
  const page = await system.api('POST', '/auth/token', { headers: { ...headers, cookie: `trk_session=${cookie}` } });
  if (page.status !== 200) throw new Error(`POST /auth/token: ${page.status} ${JSON.stringify(page.body)}`);
  return page.body.access_token;
}

let system: System;
let token: string;
let world: Awaited<ReturnType<typeof makeWorld>>['world'];
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'dredd-'));
  system = await startSystem();
  ({ token, world } = await makeWorld(system));
}, 90_000);
afterAll(async () => {
  await system?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('a fresh system gives the world the examples name its ids', () => {
  expect(world).toEqual({
    workspace: 1,
    ada: 1,
    bob: 2,
    queue: 1,
    statuses: [1, 2, 3, 4, 5],
    issue: { id: 1, key: 'WEB-1', version: 1 },
    comment: 1,
    worklog: 1,
    dashboard: 1,
    // Ada's personal tokens: the operator's alone (Bob's is 2, her page's 3, neither listed to her).
    tokens: [[1, 'created by operator']],
  });
});

/** The headers Dredd sent, but the token and its User-Agent; a header parameter without an example is sent empty. */
const sentHeaders = (headers: Record<string, string> = {}) =>
  Object.entries(headers)
    .filter(([name]) => !['authorization', 'user-agent'].includes(name.toLowerCase()))
    .map(([name, value]) => `${name}: ${JSON.stringify(value)}`)
    .join(', ');

/** A transaction as one readable block: Dredd's messages, what it sent, what came back. */
const describeTest = (t: DreddTest) =>
  [
    `${t.status.toUpperCase()} ${t.title}${t.origin?.actionName ? ` (${t.origin.actionName})` : ''}`,
    t.message?.trim(),
    t.error,
    t.request && `  sent: ${t.request.method} ${t.request.uri} [${sentHeaders(t.request.headers)}] ${t.request.body ?? ''}`,
    t.actualStatus !== undefined && `  got: ${t.actualStatus} ${t.actualHeaders?.['content-type'] ?? ''} ${t.actualBody ?? ''}`,
  ]
    .filter(Boolean)
    .join('\n');

test("Dredd runs every operation's documented example green against the system", async () => {
  // The document as the gateway serves it, without a token: nothing added, nothing changed.
  const served = await fetch(system.gatewayUrl + OPENAPI_PATH);
  expect(served.status).toBe(200);
  const documentFile = path.join(dir, 'openapi.json');
  await writeFile(documentFile, await served.text());
  const resultFile = path.join(dir, 'result.json');

  const started = Date.now();
  const output = await run(process.execPath, [RUNNER, system.gatewayUrl, documentFile, resultFile], {
    env: { ...process.env, DREDD_TOKEN: token },
    timeout: 60_000,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: Error & { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: `${error.message}\n${error.stderr ?? ''}` }));
  const result: DreddResult | undefined = await readFile(resultFile, 'utf8').then(JSON.parse, () => undefined);
  const ms = Date.now() - started;
  if (!result || result.error) {
    // Its parser's errors (a document it cannot compile) are among many warnings in its output.
    const lines = `${output.stdout}\n${output.stderr}`.split('\n');
    const errors = lines.filter((l) => /^error:/.test(l));
    throw new Error(`Dredd did not run: ${result?.error ?? 'no result'}\n--- Dredd's output ---\n${(errors.length ? errors : lines).join('\n')}`);
  }

  const ran = result.tests.filter((t) => t.status !== 'skip');
  const failed = ran.filter((t) => t.status !== 'pass');
  if (failed.length) {
    // Dredd's own message per transaction: which expectation failed, what was sent, what came back.
    console.log([`Dredd: ${failed.length} of ${ran.length} transactions failed (${ms} ms)`, ...failed.map(describeTest)].join('\n\n'));
  }
  expect(failed.map((t) => `${t.status} ${t.title}`)).toEqual([]);
  expect(result.stats).toMatchObject({ failures: 0, errors: 0 });

  // One success transaction per operation, each the documented success status.
  const operationOf = (t: DreddTest) => {
    const [, method, uri] = /^(\w+) \(\d+\) (.*)$/.exec(t.title) ?? [];
    return method && uri ? operationFor(method, uri)?.operationId : undefined;
  };
  // But the live stream's, skipped with a reason (../dredd/hooks.cjs): its example is there, and not run.
  const streams = API_OPERATIONS.filter((o) => o.success.eventStream).map((o) => o.operationId);
  expect(result.tests.filter((t) => t.status === 'skip' && /^GET \(200\)/.test(t.title)).map(operationOf)).toEqual(streams);
  expect(ran.map(operationOf).sort()).toEqual(API_OPERATIONS.filter((o) => !streams.includes(o.operationId)).map((o) => o.operationId).sort());
  for (const t of ran) {
    const operation = API_OPERATIONS.find((o) => o.operationId === operationOf(t))!;
    expect(`${operation.operationId} ${t.expectedStatus}`).toBe(`${operation.operationId} ${operation.success.status}`);
  }
}, 90_000);
