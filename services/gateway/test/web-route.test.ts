import { INTERNAL_HEADERS } from '@tracker/kit';
import { closedPortUrl, testRedisUrl } from '@tracker/testing';
import { newToken, startFakeAccessForGateway, startRecordingUpstream, startGateway, whenReady, type FakeAccessForGateway, type RecordingUpstream, type GatewayUnderTest } from './harness';

/**
 * The web pages at the gateway: every GET and HEAD that is not /api/*, /mcp or /auth/*
 * goes to the web service (a recording stand-in here), without the client's token,
 * cookie or internal headers, and is counted under one metrics label; every other method
 * on those paths stays the gateway's 404.
 */
let access: FakeAccessForGateway;
let web: RecordingUpstream;
let gw: GatewayUnderTest;

beforeAll(async () => {
  access = await startFakeAccessForGateway();
  web = await startRecordingUpstream();
  gw = await startGateway(access, { REDIS_URL: testRedisUrl(), WEB_URL: web.url });
  await whenReady(gw.gateway.redis);
});
afterAll(async () => {
  await gw.close();
  await web.close();
  await access.close();
});
beforeEach(() => {
  web.received.length = 0;
});

describe('the web pages through the gateway', () => {
  test.each(['/', '/sign-in', '/setup', '/settings/tokens', '/assets/index-AbCd1234.js', '/no-such-page', '/apiary', '/authors', '/mcpx', '/sign-in?next=%2Fsettings%2Ftokens'])(
    'when a browser GETs %s, then the web service gets it, path and query as sent, and its answer comes back',
    async (path) => {
      const res = await fetch(`${gw.url}${path}`, { headers: { accept: 'text/html' } });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ ok: true });
      expect(web.received.map((r) => [r.method, r.url])).toEqual([['GET', path]]);
    },
  );

  test('when a page is asked for with HEAD, then it is forwarded as HEAD', async () => {
    const res = await fetch(`${gw.url}/settings/tokens`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(web.received.map((r) => [r.method, r.url])).toEqual([['HEAD', '/settings/tokens']]);
  });

  test('when a page request carries a token, a session cookie or internal headers, then none of them reaches the web service', async () => {
    const forged = Object.fromEntries(INTERNAL_HEADERS.map((name) => [name, 'forged']));
    await fetch(`${gw.url}/settings/tokens`, { headers: { ...forged, authorization: `Bearer ${newToken()}`, cookie: 'trk_session=secret', 'x-request-id': 'page-1' } });
    const [forwarded] = web.received;
    expect(forwarded!.headers.authorization).toBeUndefined();
    expect(forwarded!.headers.cookie).toBeUndefined();
    for (const name of INTERNAL_HEADERS) expect([name, forwarded!.headers[name]]).toEqual([name, undefined]);
    expect(forwarded!.headers['x-request-id']).toBe('page-1');
  });

  test.each(['POST', 'PUT', 'PATCH', 'DELETE'])('when %s is sent to a page path, then the gateway answers 404 problem+json and forwards nothing', async (method) => {
    const res = await fetch(`${gw.url}/settings/tokens`, { method, headers: { 'content-type': 'application/json' }, body: method === 'DELETE' ? undefined : '{}' });
    expect([res.status, res.headers.get('content-type'), ((await res.json()) as { code: string }).code]).toEqual([404, 'application/problem+json', 'not_found']);
    expect(web.received).toEqual([]);
  });

  test.each(['/api', '/api/', '/api/v2/issues', '/API/v2/issues', '/Auth/x', '/api/v1/nope', '/auth/nope', '/auth', '/mcp', '/mcp/'])('when a browser GETs %s, then the API, sign-in or MCP rules answer and the web service is never asked', async (path) => {
    const res = await fetch(`${gw.url}${path}`, { headers: { accept: 'text/html' } });
    expect([401, 404]).toContain(res.status);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(web.received).toEqual([]);
  });

  test('the gateway`s own health and the published document are still its own', async () => {
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${gw.url}/api/v1/openapi.json`)).status).toBe(200);
    expect(web.received).toEqual([]);
  });

  test('when pages are asked for, then the metrics label them all `web`, never by their path', async () => {
    for (let i = 0; i < 20; i++) await fetch(`${gw.url}/page-${i}/${'x'.repeat(i)}`);
    const labels = (await gw.gateway.metrics.http.requests.get()).values.filter((v) => v.labels.method === 'GET').map((v) => String(v.labels.route));
    expect(labels).toContain('web');
    expect(labels.some((label) => label.includes('page-'))).toBe(false);
  });

  test('when the web service is down, then 503 problem+json asking to retry', async () => {
    const down = await startGateway(access, { REDIS_URL: testRedisUrl(), WEB_URL: await closedPortUrl() });
    try {
      const res = await fetch(`${down.url}/sign-in`);
      expect([res.status, res.headers.get('content-type'), res.headers.get('retry-after')]).toEqual([503, 'application/problem+json', '5']);
      expect(((await res.json()) as { code: string }).code).toBe('service_unavailable');
    } finally {
      await down.close();
    }
  });
});
