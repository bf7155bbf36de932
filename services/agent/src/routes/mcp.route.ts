import type { Router } from 'express';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { principalOf, proofsOf } from '@tracker/kit';
import { callTool, type Caller } from '../domain/call-tool.use-case';
import type { AgentDeps } from '../domain/deps';
import { toolNamed, TOOLS } from '../domain/tools';
import { version } from '../../package.json';

export const MCP_PATH = '/mcp';

const INSTRUCTIONS = `Tracker is a team issue tracker. Each tool is one operation of Tracker's REST API and acts as the token's owner, with their current rights.
Typical work: find an issue with search_issues or read it by key with get_issue, then update_issue (send the version you read), add_comment or add_worklog.
Ids come from the list tools (list_queues, list_statuses, list_users). A refusal is an error result whose text is the API's problem+json (status, code, detail).`;

const tools = { tools: TOOLS.map((tool) => tool.definition) };
/**
 * The SDK builds an Ajv instance per Server unless given one (for elicitation answers,
 * which this server never asks for): 180 µs a request, a fifth of the agent's CPU (bench B8).
 */
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/**
 * One MCP server per request over the stateless Streamable HTTP transport: no session
 * lives in a process, so any replica answers any request. The caller is the user the
 * gateway authenticated; answers are plain JSON (no SSE stream is needed for tools that
 * answer at once).
 */
export function mcpRoutes(router: Router, deps: AgentDeps): void {
  router.post(MCP_PATH, async (req, res) => {
    if (Array.isArray(req.body)) {
      res.status(400).json(BATCH_REFUSED);
      return;
    }
    const caller: Caller = { principal: principalOf(res), proofs: proofsOf(res), requestId: res.locals.requestId };
    const server = mcpServer(deps, caller);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    // A client gone before its answer: the server is closed (and its transport with it), so
    // the call's answer is dropped; the service call itself runs to its end. After a whole
    // answer nothing is left to stop, and closing would only build a "Connection closed"
    // error with its stack for no one (2-3 % of a call's CPU).
    res.on('close', () => {
      if (!res.writableFinished) void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });

  // A stateless server offers no stream to GET and no session to DELETE (transport spec: 405).
  router.all(MCP_PATH, (_req, res) => {
    res
      .status(405)
      .setHeader('Allow', 'POST')
      .json({ jsonrpc: '2.0', error: { code: ErrorCode.ConnectionClosed, message: 'Method not allowed: send JSON-RPC messages with POST.' }, id: null });
  });
}

/**
 * One POST, one message: the protocol has had no JSON-RPC batches since revision
 * 2025-06-18. An array (an empty one too) is refused before a server exists, so it calls
 * no service and lists no tools, and a request the gateway counts once is one call.
 * Shaped as the SDK transport's own refusals of a request: HTTP 400, -32600, id null.
 */
const BATCH_REFUSED = {
  jsonrpc: '2.0',
  error: { code: ErrorCode.InvalidRequest, message: 'Invalid Request: JSON-RPC batches are not supported; send one message per request.' },
  id: null,
};

/** JSON-RPC -32602 with a plain message (McpError would prefix it with "MCP error -32602:", which clients add again). */
const unknownTool = (name: string) =>
  Object.assign(new Error(`Unknown tool: ${name}. tools/list names every tool.`), { code: ErrorCode.InvalidParams });

function mcpServer(deps: AgentDeps, caller: Caller): Server {
  const server = new Server(
    { name: 'tracker', title: 'Tracker', version },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS, jsonSchemaValidator },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => tools);
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = toolNamed(request.params.name);
    if (!tool) throw unknownTool(request.params.name);
    return callTool(deps, caller, tool, request.params.arguments);
  });
  return server;
}
