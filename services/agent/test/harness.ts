import { randomInt, randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { bodyDigest, checkTicket, PRINCIPAL_HEADER, serve, type Principal, type RunningServer, type UserPrincipal } from '@tracker/kit';
import { type Signer } from '@tracker/signing';
import { devTicketKeys, issueFixture, queueMemberFixture, signedClient, startFakeUpstream, ticketedFetch, ticketFor, type UpstreamRequest } from '@tracker/testing';
import { createAgentService, type AgentService } from '../src/app';
import { loadAgentConfig } from '../src/config';


/** One request as a fake upstream received it, undecoded. */
export type Received = Pick<UpstreamRequest, 'method' | 'url' | 'headers' | 'body'>;

/**
 * What a fake upstream answers: a status, the exact body bytes and headers; `hang`: never
 * answer; `hang-mid-body`: the head and part of the body, then nothing; `drop`: close the
 * connection without a word.
 */
export type Answer = { status: number; body: string; headers?: Record<string, string> } | 'hang' | 'hang-mid-body' | 'drop';

/**
 * A stand-in for one service (access, issues or statistics) that records every request
 * (`received`) and answers what the test set. It checks nothing itself: the tests check
 * what it received.
 */
export interface ScriptedUpstream {
  url: string;
  received: Received[];
  answer: (answer: Answer) => void;
  reset: () => void;
  close: () => Promise<void>;
}

/** A JSON answer as a service sends it (compact, application/json). */
export const json = (status: number, value: unknown, headers: Record<string, string> = {}): Answer => ({
  status,
  body: JSON.stringify(value),
  headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
});

const NO_ANSWER: Answer = { status: 500, body: 'no answer set by the test' };

export async function startScriptedUpstream(): Promise<ScriptedUpstream> {
  let answer = NO_ANSWER;
  const received: Received[] = [];
  const upstream = await startFakeUpstream(({ method, url, headers, body }, res) => {
    received.push({ method, url, headers, body });
    if (answer === 'hang') return;
    if (answer === 'drop') return res.socket?.destroy();
    if (answer === 'hang-mid-body') {
      // The head and half a body, then silence: an upstream stuck mid-answer.
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"id":');
      return;
    }
    res.writeHead(answer.status, answer.headers ?? {});
    res.end(answer.body);
  });
  return {
    url: upstream.url,
    received,
    answer: (next) => {
      answer = next;
    },
    reset: () => {
      received.length = 0;
      answer = NO_ANSWER;
    },
    close: upstream.close,
  };
}

export interface RunningAgent {
  url: string;
  service: AgentService;
  close: () => Promise<void>;
}

/** The agent service in this test process on a random port, calling the given upstreams. */
export async function startAgent(env: { ACCESS_URL: string; ISSUES_URL: string; STATISTICS_URL: string; NOTIFICATIONS_URL?: string; UPSTREAM_TIMEOUT_MS?: string }): Promise<RunningAgent> {
  const config = loadAgentConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env });
  const service = createAgentService(config);
  const running: RunningServer = await serve(service.app, { port: 0, host: '127.0.0.1', logger: service.logger, graceMs: 100 });
  return {
    url: `http://127.0.0.1:${running.port}`,
    service,
    close: async () => {
      await running.shutdown();
      await service.close();
    },
  };
}

/** A caller of its own: ids no other test uses. */
export function newCaller(workspaceRole: 'admin' | 'member' = 'member'): UserPrincipal {
  return { kind: 'user', userId: randomInt(1, 2 ** 31 - 1), workspaceId: randomInt(1, 2 ** 31 - 1), workspaceRole, tokenId: randomInt(1, 2 ** 31 - 1) };
}

export const newRequestId = () => `test-${randomUUID()}`;

/**
 * The headers the gateway puts on a request it forwards to /mcp: the ticket is made for
 * `message` (POST) or for `method` with no body, and signed (as with INTERNAL_TICKETS=signed).
 */
export const mcpHeaders = (caller: UserPrincipal, extra: Record<string, string> = {}, request: { message?: unknown; method?: string } = {}) => ({
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  [PRINCIPAL_HEADER]: ticketFor(caller, {
    audience: 'agent',
    method: request.method ?? 'POST',
    path: '/mcp',
    body: request.message === undefined ? undefined : JSON.stringify(request.message),
  }),
  ...extra,
});


/** Whom the ticket on a request a fake upstream received vouches for, checked as `audience` would (null: not valid). */
export function vouchedFor(request: Received, audience: Signer): Principal | null {
  const check = checkTicket(request.headers[PRINCIPAL_HEADER] as string | undefined, devTicketKeys(audience), {
    audience,
    method: request.method,
    path: request.url,
    bodyDigest: bodyDigest(Buffer.from(request.body)),
  });
  return check.ok ? check.principal : null;
}

/** The claims of a ticket or proof, unchecked. */
export const claimsOf = (text: string) => JSON.parse(Buffer.from(text.split('.')[1]!, 'base64url').toString('utf8'));

/** The proof the agent handed on (`act`) in the ticket a fake upstream received. */
export const actOf = (request: Received): string => claimsOf(request.headers[PRINCIPAL_HEADER] as string).act;

export type McpClient = Client & { close: () => Promise<void> };

/**
 * The SDK's own output-schema validator (Ajv), compiling each distinct schema once per
 * test file: every client would otherwise compile all 20 output schemas again.
 */
const ajv = new AjvJsonSchemaValidator();
const compiled = new Map<string, JsonSchemaValidator<unknown>>();
const outputValidator: jsonSchemaValidator = {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const key = JSON.stringify(schema);
    if (!compiled.has(key)) compiled.set(key, ajv.getValidator(schema));
    return compiled.get(key) as JsonSchemaValidator<T>;
  },
};

/**
 * The official SDK client connected to the agent as the gateway would forward it: the
 * gateway's tagged ticket for the caller, with its proofs, (and a request id) on every
 * request. tools/list is read first, so the client also checks every structuredContent
 * against the tool's outputSchema.
 */
export async function connect(agentUrl: string, caller: UserPrincipal, requestId = newRequestId()): Promise<McpClient> {
  const client = new Client({ name: 'agent-tests', version: '1.0.0' }, { jsonSchemaValidator: outputValidator });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', agentUrl), {
    requestInit: { headers: { 'x-request-id': requestId } },
    fetch: ticketedFetch(caller, 'agent', { tagged: true }),
  });
  await client.connect(transport);
  await client.listTools();
  return client as McpClient;
}

/** A raw JSON-RPC POST to /mcp, for the HTTP details the SDK client hides: `headers` carry the ticket (mcpHeaders). */
export function post(agentUrl: string, message: unknown, headers: Record<string, string>) {
  return signedClient(agentUrl, 'agent')('POST', '/mcp', { raw: JSON.stringify(message), headers });
}

/** The problem+json body of a tool's error result. */
export function problemIn(result: { content?: unknown }): Record<string, unknown> {
  const [first] = result.content as Array<{ type: string; text: string }>;
  return JSON.parse(first!.text);
}

// ---------------------------------------------------------------------------------------
// Answers as the services send them (libs/contracts), so the client's outputSchema check passes.

const AT = '2026-11-20T09:30:00.000Z';

export const fixtures = {
  user: (id = 7) => ({ id, workspace_id: 1, name: `User ${id}`, role: 'member', active: true, email: `user${id}@example.com`, created_at: AT, updated_at: AT }),
  /** POST /users: the new user and their setup link. */
  invitedUser: (id = 9) => ({ ...fixtures.user(id), setup_url: 'https://tracker.example.com/setup#code=vN3kq0yD0d6kz8H9bX2c1wQe7rT5uI3oP1aS9dF4gH2' }),
  me: (id = 7) => ({ ...fixtures.user(id), workspace: { id: 1, name: 'Acme' } }),
  status: (id = 11, queueId = 3) => ({ id, queue_id: queueId, name: 'Open', category: 'open', position: 1 }),
  queue: (id = 3) => ({
    id,
    workspace_id: 1,
    key: 'WEB',
    name: 'Website',
    description: '',
    statuses: [fixtures.status(11, id)],
    role: 'admin',
    role_source: 'inherited',
    created_at: AT,
    updated_at: AT,
  }),
  issue: (n = 12) =>
    issueFixture({
      id: 1000 + n,
      key: `WEB-${n}`,
      workspace_id: 1,
      queue_id: 3,
      title: `Issue ${n}`,
      status_id: 11,
      position: n,
      version: 4,
      created_by: 7,
      created_at: AT,
      updated_at: AT,
    }),
  /** Search rows (IssueSummary). */
  issues: (count: number) => Array.from({ length: count }, (_, i) => ({ ...fixtures.issue(i + 1), description_truncated: false })),
  issueDetails: (n = 12) => ({
    ...fixtures.issue(n),
    comments: [],
    comments_total: 0,
    worklogs: [],
    worklogs_total: 0,
    history: [],
    history_total: 0,
    links: [],
    links_total: 0,
    subtasks: [],
    subtasks_total: 0,
  }),
  /** A page of GET /issues/{key}/comments. */
  commentPage: () => ({ items: [fixtures.comment()], total: 51, next_after_id: 5 }),
  comment: () => ({ id: 5, issue_id: 1012, author_id: 7, body: 'Fixed.', created_at: AT }),
  worklog: () => ({ id: 6, issue_id: 1012, author_id: 7, minutes: 45, description: '', created_at: AT }),
  statistics: () => ({
    total: 1,
    truncated: false,
    as_of: AT,
    progress: { open: 1, progress: 0, done: 0, total: 1, done_percent: 0 },
    time: { estimate_minutes: 0, spent_minutes: 0 },
    queues: [{ queue_id: 3, key: 'WEB', open: 1, progress: 0, done: 0, total: 1, estimate_minutes: 0, spent_minutes: 0 }],
    assignees: [{ assignee_id: null, open: 1, progress: 0, done: 0, total: 1, estimate_minutes: 0, spent_minutes: 0 }],
  }),
  dashboard: (id = 2) => ({
    id,
    workspace_id: 1,
    owner_id: 7,
    name: 'Release 2.4',
    widgets: [{ type: 'stats', title: '', filters: { mine: false, overdue: false } }],
    created_at: AT,
    updated_at: AT,
  }),
  member: (userId = 7) => queueMemberFixture({ user_id: userId, name: `User ${userId}` }),
  queuePermissions: (queueId = 3) => ({
    queue_id: queueId,
    members: [fixtures.member(7)],
    history: [{ user_id: 7, from: null, to: 'read-write', actor_id: 1, at: AT }],
    history_total: 51,
  }),
  permissionChangePage: () => ({ items: [{ user_id: 7, from: 'read-only', to: 'read-write', actor_id: 1, at: AT }], total: 51, next_after_id: 9 }),
  queuePermission: (queueId = 3, userId = 7) => ({ ...fixtures.member(userId), queue_id: queueId }),
  /** A page of GET /events: a comment on WEB-12. */
  eventPage: () => ({
    items: [
      {
        id: '9c8b7a6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
        type: 'comment.added',
        timestamp: AT,
        workspace_id: 1,
        data: { comment: { ...fixtures.comment(), issue_key: 'WEB-12' }, actor_id: 7 },
      },
    ],
    next_cursor: 'c1_MTI1',
  }),
};
