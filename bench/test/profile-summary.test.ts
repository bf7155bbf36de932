import { ownerOf } from '../src/profile-summary';

describe('profile summary', () => {
  it('charges a frame to its package (the MCP SDK by file), a source file, or Node', () => {
    expect(ownerOf('file:///work/main/node_modules/.pnpm/ajv@8.17.1/node_modules/ajv/dist/core.js')).toBe('ajv');
    expect(ownerOf('file:///w/node_modules/.pnpm/@hono+node-server@1.19.9/node_modules/@hono/node-server/dist/index.js')).toBe('@hono/node-server');
    expect(ownerOf('file:///w/node_modules/.pnpm/@modelcontextprotocol+sdk@1.32.2_zod@4.6.7/node_modules/@modelcontextprotocol/sdk/dist/cjs/server/index.js')).toBe('sdk server/index.js');
    expect(ownerOf('file:///work/main/services/agent/src/routes/mcp.route.ts')).toBe('services/agent/src/routes/mcp.route.ts');
    expect(ownerOf('node:_http_server')).toBeNull();
    expect(ownerOf('')).toBeNull();
  });
});
