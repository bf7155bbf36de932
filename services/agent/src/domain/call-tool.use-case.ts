import { IDEMPOTENCY_KEY_HEADER, SEARCH_TOTAL_HEADER, SEARCH_TRUNCATED_HEADER } from '@tracker/contracts';
import { AppError, fieldErrors, invalid, problemBody, upstreamUnavailable, UpstreamUnavailableError, type Proofs, type UpstreamAnswer, type UserPrincipal } from '@tracker/kit';
import type { AgentDeps } from './deps';
import type { OwningService } from './ports';
import type { Tool } from './tools';

/** A tool's outcome as MCP carries it (a CallToolResult). */
export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: true;
}

export interface Caller {
  principal: UserPrincipal;
  /** From the gateway's ticket for this /mcp request: the agent's proof, for each service, that the user is calling it now. */
  proofs: Proofs;
  requestId: string;
}

/**
 * Runs a tool as its REST operation: the arguments are checked against the operation's
 * own schema (path parameters beside the body's fields), then the owning service is
 * called with the caller's principal, so every decision and refusal is the REST one.
 * A caller with as many calls running as the bound allows is refused at once (429).
 */
export async function callTool(deps: AgentDeps, caller: Caller, tool: Tool, args: Record<string, unknown> = {}): Promise<ToolResult> {
  const release = deps.callsInFlight.take(callerKey(caller.principal));
  // The slot is held until the service call ends, even for a client gone before its
  // answer: what is bounded is the work the services do, not the answers awaited.
  const { status, result } = release ? await run(deps, caller, tool, args).finally(release) : refusal(tooManyCalls(deps.callsInFlight.limit));
  deps.metrics.agent.toolCalls.inc({ tool: tool.name, status: String(status) });
  return result;
}

/** A user is one person in one workspace. */
const callerKey = (principal: UserPrincipal) => `${principal.workspaceId}:${principal.userId}`;

const tooManyCalls = (limit: number) =>
  new AppError('rate_limited', `Too many tool calls in progress for this user: at most ${limit} at once. Retry once one of them has answered.`);

async function run(deps: AgentDeps, caller: Caller, tool: Tool, args: Record<string, unknown>) {
  const parsed = tool.args.safeParse(args);
  if (!parsed.success) {
    return refusal(invalid(fieldErrors(parsed.error), 'The tool arguments are not valid; nothing was changed.'));
  }
  const { operation } = tool;
  const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(args[name]))) + queryOf(tool, args);
  const service = operation.service as OwningService;
  let answer: UpstreamAnswer;
  try {
    answer = await deps.services[service].request(operation.method.toUpperCase(), path, {
      // The gateway's proof for that service names the user: the agent cannot name anyone else.
      onBehalfOf: caller.proofs[service],
      body: operation.body ? bodyOf(tool, args) : undefined,
      requestId: caller.requestId,
      ...(tool.idempotent && typeof args.idempotency_key === 'string' ? { headers: { [IDEMPOTENCY_KEY_HEADER]: args.idempotency_key } } : {}),
    });
  } catch (error) {
    if (error instanceof UpstreamUnavailableError) return refusal(upstreamUnavailable(operation.service));
    throw error;
  }
  // The REST refusal exactly as REST sends it: status, code, detail, errors[], version.
  if (answer.status >= 400) return { status: answer.status, result: errorResult(answer.text) };
  const body = jsonOf(answer.text);
  // A success that is not JSON is a service answering out of contract: as for internalClient, unavailable.
  if (body === undefined) return refusal(upstreamUnavailable(operation.service));
  // An object is answered as the service sent it: its text is already that JSON (the
  // services send compact JSON.stringify output: libs/kit sendJsonText, res.json).
  if (tool.answer === 'object') return { status: answer.status, result: success(body as Record<string, unknown>, answer.text) };
  return { status: answer.status, result: success(structured(tool, body, parsed.data, answer)) };
}

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The query string as a REST client would send it: the query parameters given (absent ones take the REST defaults). */
function queryOf(tool: Tool, args: Record<string, unknown>): string {
  const given = tool.queryParams.filter((name) => args[name] !== undefined).map((name): [string, string] => [name, String(args[name])]);
  return given.length > 0 ? `?${new URLSearchParams(given).toString()}` : '';
}

/** The body as a REST client would send it: the arguments that are not path or query parameters (nor the tool's own `limit` and `idempotency_key`). */
function bodyOf(tool: Tool, args: Record<string, unknown>): Record<string, unknown> {
  const body = { ...args };
  for (const name of [...tool.pathParams, ...tool.queryParams]) delete body[name];
  if (tool.answer === 'search') delete body.limit;
  if (tool.idempotent) delete body.idempotency_key;
  return body;
}

/** A list answer as the tool returns it: `{ items }`, the search's with its total and whether it was cut. */
function structured(tool: Tool, body: unknown, args: Record<string, unknown>, answer: UpstreamAnswer): Record<string, unknown> {
  const items = body as unknown[];
  if (tool.answer === 'list') return { items };
  const limit = args.limit as number;
  const cut = answer.headers[SEARCH_TRUNCATED_HEADER.toLowerCase()] === 'true';
  const counted = Number(answer.headers[SEARCH_TOTAL_HEADER.toLowerCase()]);
  const total = Number.isInteger(counted) ? counted : items.length;
  return { items: items.slice(0, limit), total, truncated: cut || items.length > limit };
}

const success = (value: Record<string, unknown>, text = JSON.stringify(value)): ToolResult => ({
  content: [{ type: 'text', text }],
  structuredContent: value,
});

const errorResult = (problem: string): ToolResult => ({ isError: true, content: [{ type: 'text', text: problem }] });

/** A refusal of the agent's own (invalid arguments, a service away), as REST would answer it. */
const refusal = (error: AppError) => ({ status: error.status, result: errorResult(JSON.stringify(problemBody(error))) });
