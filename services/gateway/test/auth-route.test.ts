import { bodyDigest, checkTicket, CLIENT_HEADER, PRINCIPAL_HEADER } from '@tracker/kit';
import { devTicketKeys, startFakeUpstream, testRedisUrl, type FakeUpstream, type UpstreamRequest } from '@tracker/testing';
import { newToken, principalOf, startFakeAccessForGateway, startGateway, tokenHashOf, whenReady, type FakeAccessForGateway, type GatewayUnderTest } from './harness';
import { createLogger } from '@tracker/kit';
import { tokenUses } from '../src/data-access/token-uses';

/**
 * /auth/* at the gateway: forwarded to the access service as it came (cookie included),
 * with a ticket naming no user and the client's address; nothing else. A recording
 * stand-in plays the access service.
 */
let fakeAccess: FakeUpstream;
let received: UpstreamRequest[] = [];
let access: FakeAccessForGateway;
let gw: GatewayUnderTest;

beforeAll(async () => {
  fakeAccess = await startFakeUpstream((_request, res) => res.writeHead(204, { 'set-cookie': 'trk_session=abc; Path=/; HttpOnly; SameSite=Lax' }).end());
  received = fakeAccess.requests;
  access = await startFakeAccessForGateway();
  gw = await startGateway(access, { REDIS_URL: testRedisUrl(), ACCESS_URL: fakeAccess.url, CLIENT_ADDRESS_HEADER: 'X-Forwarded-For' });
  await whenReady(gw.gateway.redis);
});
afterAll(async () => {
  await gw.close();
  await access.close();
  await fakeAccess.close();
});
beforeEach(() => {
  received.length = 0;
});

describe('/auth through the gateway', () => {
  test('when a browser signs in, then the access service gets the body, the cookie and the client, with a ticket for exactly that request naming no user; the Set-Cookie comes back', async () => {
    const body = JSON.stringify({ email: 'ada@example.com', password: 'correct horse battery staple' });
    const res = await fetch(`${gw.url}/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: 'trk_session=old', 'x-forwarded-for': '203.0.113.9', authorization: `Bearer ${newToken()}`, [CLIENT_HEADER]: 'forged' },
      body,
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('set-cookie')).toBe('trk_session=abc; Path=/; HttpOnly; SameSite=Lax');
    const [forwarded] = received;
    expect(forwarded!.body.toString()).toBe(body);
    expect(forwarded!.headers.cookie).toBe('trk_session=old');
    expect(forwarded!.headers[CLIENT_HEADER]).toBe('203.0.113.9');
    expect(forwarded!.headers.authorization).toBeUndefined();
    const ticket = checkTicket(forwarded!.headers[PRINCIPAL_HEADER] as string, devTicketKeys('access'), { audience: 'access', method: 'POST', path: '/auth/sign-in', bodyDigest: bodyDigest(Buffer.from(body)) });
    expect(ticket).toEqual(expect.objectContaining({ ok: true, principal: { kind: 'service', service: 'gateway' } }));
  });

  test('when a path or method is not one of the decided /auth operations, then 404 and nothing is forwarded', async () => {
    for (const [method, path] of [['GET', '/auth/sign-in'], ['POST', '/auth/admin'], ['DELETE', '/auth/session'], ['POST', '/auth/sign-in/x']] as const) {
      expect((await fetch(`${gw.url}${path}`, { method })).status).toBe(404);
    }
    expect(received).toEqual([]);
  });

  test('when an /auth body is over 16 KiB, then 413 and nothing is forwarded', async () => {
    const res = await fetch(`${gw.url}/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: 'x'.repeat(17 * 1024) }) });
    expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([413, 'payload_too_large']);
    expect(received).toEqual([]);
  });

  test('when /auth answers, then the metrics label is its path (or unmatched), never a path a client made up', async () => {
    await fetch(`${gw.url}/auth/session`);
    await fetch(`${gw.url}/auth/${'x'.repeat(100)}`);
    const labels = (await gw.gateway.metrics.http.requests.get()).values.map((v) => v.labels.route);
    expect(labels).toContain('/auth/session');
    expect(labels.some((label) => String(label).includes('xxx'))).toBe(false);
  });
});

describe('token uses (last_used_at)', () => {
  test('when tokens are used, then one batch per interval carries the latest use of each, and a failed batch is sent again with the next', async () => {
    const batches: Array<Array<{ tokenId: number; at: Date }>> = [];
    let failNext = true;
    const sink = {
      async recordUses(uses: Array<{ tokenId: number; at: Date }>) {
        if (failNext) {
          failNext = false;
          throw new Error('access away');
        }
        batches.push(uses);
      },
    };
    const uses = tokenUses(sink, 60_000, createLogger('test', 'silent'));
    uses.used(1);
    uses.used(2);
    uses.used(1);
    await uses.flush();
    expect(batches).toEqual([]);
    uses.used(3);
    await uses.flush();
    expect(batches).toHaveLength(1);
    expect(batches[0]!.map((u) => u.tokenId).sort()).toEqual([1, 2, 3]);
    await uses.flush();
    expect(batches).toHaveLength(1);
    await uses.stop();
  });

  test('when a request passes the gateway, then its token\'s use reaches the access service within the flush interval', async () => {
    const token = newToken();
    const principal = principalOf();
    access.tokens.set(tokenHashOf(token), principal);
    const quick = await startGateway(access, { REDIS_URL: testRedisUrl(), TOKEN_USE_FLUSH_MS: '100' });
    try {
      const before = Date.now();
      expect((await quick.me(token)).status).toBe(200);
      const deadline = Date.now() + 2000;
      while (!access.uses.some((use) => use.token_id === principal.tokenId) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      const use = access.uses.find((u) => u.token_id === principal.tokenId);
      expect(use).toBeDefined();
      expect(Date.parse(use!.at)).toBeGreaterThanOrEqual(before - 5);
    } finally {
      await quick.close();
    }
  });
});
