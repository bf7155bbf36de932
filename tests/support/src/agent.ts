import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export type AgentClient = Client & { close: () => Promise<void> };

/**
 * The official MCP SDK client connected to a gateway's /mcp with a bearer token, as an
 * agent (Claude, an IDE) connects: initialize, then tools/list and tools/call.
 */
export async function connectAgent(gatewayUrl: string, token: string, options: { fetch?: typeof fetch } = {}): Promise<AgentClient> {
  const client = new Client({ name: 'tracker-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', gatewayUrl), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: options.fetch,
  });
  await client.connect(transport);
  return client as AgentClient;
}

/** A tool result's problem+json (an error result's text), or null for a success. */
export function problemOf(result: { isError?: boolean; content?: unknown }): Record<string, any> | null {
  if (!result.isError) return null;
  const [first] = result.content as Array<{ type: string; text: string }>;
  return JSON.parse(first!.text);
}
