import { API_OPERATIONS, API_VERSION, OPENAPI_PATH, openApiDocument, PROBLEM_CODES } from '@tracker/contracts';
import { errorCatalog, serve, type RunningServer } from '@tracker/kit';
import { documentedRoutes, publicRoutes, testRedisUrl } from '@tracker/testing';
import { createGatewayService, type GatewayService } from '../src/app';
import { loadGatewayConfig } from '../src/config';
import { RESERVED_ROUTES, ROUTE_TABLE, upstreamFor } from '../src/domain/route-table';

/** A concrete path of a documented template. */
const sample = (path: string) => path.replace('{key}', 'ABC-1').replace(/\{\w+_id\}/g, '7');
const forwarded = API_OPERATIONS.filter((o) => o.service !== 'gateway');

describe('the gateway and the OpenAPI document', () => {
  let gateway: GatewayService;
  let server: RunningServer;
  let url: string;

  beforeAll(async () => {
    // Upstreams that nobody listens on: only the document may answer without them.
    gateway = createGatewayService(
      loadGatewayConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', REDIS_URL: testRedisUrl(), ACCESS_URL: 'http://127.0.0.1:9', ISSUES_URL: 'http://127.0.0.1:9', STATISTICS_URL: 'http://127.0.0.1:9' }),
    );
    server = await serve(gateway.app, { port: 0, host: '127.0.0.1', logger: gateway.logger, graceMs: 100 });
    url = `http://127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    await server.shutdown();
    await gateway.close();
  });

  test('when GET /api/v1/openapi.json is sent without a token, then 200 with the document of version 1.0.0', async () => {
    const response = await fetch(url + OPENAPI_PATH);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = (await response.json()) as { info: { version: string } };
    expect(body).toEqual(openApiDocument());
    expect(body.info.version).toBe(API_VERSION);
  });

  test('when another method is sent to the document path without a token, then 401 as for any other path', async () => {
    const response = await fetch(url + OPENAPI_PATH, { method: 'POST' });
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
  });

  test('then the routes the gateway serves itself are exactly its documented operations', () => {
    expect(publicRoutes(gateway.app)).toEqual(documentedRoutes('gateway'));
  });

  test('then every documented operation of a service is routed to that service', () => {
    for (const operation of forwarded) {
      expect([operation.operationId, upstreamFor(sample(operation.path))]).toEqual([operation.operationId, operation.service]);
    }
  });

  test('then every route of the route table serves some documented operation (but /mcp, the agent tool interface, and the routes reserved for the webhooks)', () => {
    const rest = ROUTE_TABLE.filter(([pattern, upstream]) => upstream !== 'agent' && !RESERVED_ROUTES.includes(pattern));
    expect(rest).toHaveLength(ROUTE_TABLE.length - 2);
    expect(RESERVED_ROUTES.map((pattern) => upstreamFor('/api/v1/webhooks/1/deliveries') && String(pattern))).toEqual([String(/^\/api\/v1\/webhooks(\/.*)?$/)]);
    for (const [pattern, upstream] of rest) {
      const served = forwarded.filter((o) => pattern.test(sample(o.path)) && upstreamFor(sample(o.path)) === upstream);
      expect([String(pattern), served.length > 0]).toEqual([String(pattern), true]);
    }
  });

  test('then the problem codes the services answer with are exactly the documented ones (500 is never documented)', () => {
    const { internal_error: bug, ...answered } = errorCatalog;
    expect(answered).toEqual(PROBLEM_CODES);
    expect(bug.status).toBe(500);
    expect(Object.values(PROBLEM_CODES).map((p) => p.status)).not.toContain(500);
  });
});
