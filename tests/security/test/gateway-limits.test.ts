/**
 * OWASP API4 (resource consumption) at the gateway: a stalled body is the client's
 * fault and holds nothing upstream; floods of made-up tokens are cut per client
 * before they reach the access service.
 */
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { pollUntil, seedWorkspace, startSystem, type ServiceProcess, type System } from '@tracker/system-tests-support';

let system: System;
beforeAll(async () => {
  system = await startSystem();
}, 60_000);
afterAll(() => system?.stop());

const madeUpToken = () => `trk_${randomBytes(30).toString('base64url').replace(/[-_]/g, 'A')}`;
const resolveCalls = () => system.services.access.output().split('\n').filter((line) => line.includes('/internal/auth/resolve')).length;

/** The lookups once the log lines of earlier tests' (a blocked client's are still being resolved, 20 a second) have all come through the pipe. */
async function settledResolveCalls(): Promise<number> {
  for (;;) {
    const seen = resolveCalls();
    await new Promise((r) => setTimeout(r, 300));
    if (resolveCalls() === seen) return seen;
  }
}

/** Failures are counted per minute: a test that needs `seconds` of one window waits for the next if this one ends sooner. */
async function withinOneWindow(seconds: number) {
  const left = 60 - ((Date.now() / 1000) % 60);
  if (left < seconds) await new Promise((r) => setTimeout(r, left * 1000 + 100));
}

/** A TCP listener standing in for a service: it records connections and never answers. */
async function silentUpstream() {
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections += 1;
    sockets.add(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    connections: () => connections,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Sends `head` and the first bytes of a body, then nothing; resolves with the answer and when it came. */
function stalledRequest(port: number, head: string, firstBytes: string) {
  return new Promise<{ text: string; ms: number; closed: boolean }>((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1', () => socket.write(head + firstBytes));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (text += chunk));
    socket.on('close', () => resolve({ text, ms: Date.now() - started, closed: true }));
    socket.setTimeout(25_000, () => {
      socket.destroy();
      resolve({ text, ms: Date.now() - started, closed: false });
    });
  });
}

describe('a body that stops arriving', () => {
  let upstream: Awaited<ReturnType<typeof silentUpstream>>;
  let gateway: ServiceProcess;
  beforeAll(async () => {
    upstream = await silentUpstream();
    gateway = await system.startGateway({ ISSUES_URL: upstream.url });
  }, 30_000);
  afterAll(() => upstream?.close());

  test('when the client sends part of its body and stops, then it gets 408 within the 10 s body timeout and no service saw the request', async () => {
    const ws = await seedWorkspace(system);
    const body = JSON.stringify({ title: 'Never finished', version: 1 });
    const head = `PATCH /api/v1/issues/ABC-1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ws.admin.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;

    const answer = await stalledRequest(gateway.port, head, body.slice(0, 10));

    expect(answer.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer.text).toMatch(/content-type: application\/problem\+json/i);
    expect(answer.text).toContain('"code":"request_timeout"');
    expect(answer.text).toMatch(/connection: close/i);
    expect(answer.closed).toBe(true);
    expect(answer.ms).toBeGreaterThanOrEqual(9_500);
    expect(answer.ms).toBeLessThan(12_000);
    expect(upstream.connections()).toBe(0);
  }, 30_000);
});

describe('failed authentications per client', () => {
  let gateway: ServiceProcess;
  beforeAll(async () => {
    // The default limit (60 a minute), behind a proxy that names the client in X-Forwarded-For.
    gateway = await system.startGateway({ AUTH_FAILURES_PER_MINUTE: '60', CLIENT_ADDRESS_HEADER: 'X-Forwarded-For' });
  }, 30_000);
  const me = (token: string, client: string) =>
    system.api('GET', '/api/v1/me', { token, baseUrl: gateway.url, headers: { 'x-forwarded-for': `10.9.9.9, ${client}` } });

  test('when one client sends hundreds of made-up tokens, then past 60 failures they get 429 with Retry-After, the access service hears of 60 and a bounded trickle more, and a valid token from the same client still gets in', async () => {
    const ws = await seedWorkspace(system);
    await withinOneWindow(10);
    const before = resolveCalls();
    const started = Date.now();
    const statuses: number[] = [];
    let valid: number | undefined;
    for (let round = 0; round < 10; round++) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => me(madeUpToken(), '203.0.113.7')));
      statuses.push(...answers.map((a) => a.status));
      if (round === 9) {
        const refused = answers[0]!;
        expect(refused.status).toBe(429);
        expect(refused.body).toMatchObject({ code: 'rate_limited' });
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
        // People behind the same address are not locked out by the flood: once it has left
        // the blocked addresses' lookups a place (20 a second), a valid token gets in.
        await new Promise((r) => setTimeout(r, 100));
        valid = (await me(ws.member.token, '203.0.113.7')).status;
      }
    }
    const seconds = (Date.now() - started) / 1000;
    expect(valid).toBe(200);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(60 + 20);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(200 - 60 - 20);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    // Counted in Redis, so a concurrent burst may overshoot by what was in flight; past the
    // limit, a blocked client's tokens reach the access service at most 20 a second (the
    // valid one among them). Log lines come through a pipe, so the last ones are waited for.
    await new Promise((r) => setTimeout(r, 500));
    expect(resolveCalls() - before).toBeGreaterThanOrEqual(40);
    expect(resolveCalls() - before).toBeLessThanOrEqual(60 + 20 + 20 * Math.ceil(seconds + 1));
  }, 60_000);

  test('when one client is over the limit, then another client behind the same proxy is not affected', async () => {
    const ws = await seedWorkspace(system);
    await withinOneWindow(20);
    for (let i = 0; i < 70; i++) await me(madeUpToken(), '203.0.113.8');
    expect((await me(madeUpToken(), '203.0.113.8')).status).toBe(429);
    expect((await me(ws.member.token, '198.51.100.20')).status).toBe(200);
  }, 60_000);

  test('when the client forges X-Forwarded-For entries, then only the entry the proxy appended counts', async () => {
    await withinOneWindow(20);
    for (let i = 0; i < 70; i++) {
      await system.api('GET', '/api/v1/me', { token: madeUpToken(), baseUrl: gateway.url, headers: { 'x-forwarded-for': `192.0.2.${i}, 203.0.113.9` } });
    }
    expect((await me(madeUpToken(), '203.0.113.9')).status).toBe(429);
  }, 60_000);

  test('when the same unknown token is sent again, then the access service is not asked again', async () => {
    const token = madeUpToken();
    await withinOneWindow(5);
    const start = await settledResolveCalls();
    expect((await me(token, '198.51.100.30')).status).toBe(401);
    // Log lines come through a pipe: wait for the first lookup's line before counting.
    const before = await pollUntil(async () => resolveCalls(), (count) => count > start, 5000);
    expect(before).toBe(start + 1);
    for (let i = 0; i < 5; i++) expect((await me(token, '198.51.100.30')).status).toBe(401);
    await new Promise((r) => setTimeout(r, 500));
    expect(resolveCalls()).toBe(before);
  }, 30_000);
});

describe('failed authentications without a trusted proxy header', () => {
  test('when a client rotates X-Forwarded-For, then its connection address is what is counted', async () => {
    const gateway = await system.startGateway({ AUTH_FAILURES_PER_MINUTE: '20' });
    await withinOneWindow(20);
    for (let i = 0; i < 25; i++) {
      await system.api('GET', '/api/v1/me', { token: madeUpToken(), baseUrl: gateway.url, headers: { 'x-forwarded-for': `198.51.100.${i}` } });
    }
    const refused = await system.api('GET', '/api/v1/me', { token: madeUpToken(), baseUrl: gateway.url, headers: { 'x-forwarded-for': '198.51.100.200' } });
    expect(refused.status).toBe(429);
  }, 60_000);
});
