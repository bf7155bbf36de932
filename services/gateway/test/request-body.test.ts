import net from 'node:net';
import { randomInt } from 'node:crypto';
import { testRedisUrl } from '@tracker/testing';
import { LINGER } from '../src/routes/request-body';
import { newToken, principalOf, startFakeAccessForGateway, startRecordingUpstream, startGateway, tokenHashOf, whenReady, type FakeAccessForGateway, type RecordingUpstream, type GatewayUnderTest } from './harness';

/**
 * What a request's body costs the gateway, and when: nothing before the caller is known
 * (a made-up token is answered from the headers alone), bounded per client address while
 * it is read, checked again when it is complete, and read off after an early answer so
 * the client sees that answer rather than a reset connection. Raw sockets, so a test
 * decides exactly when each byte is sent.
 */
const IN_FLIGHT = 3;
let access: FakeAccessForGateway;
let upstream: RecordingUpstream;
let gw: GatewayUnderTest;

beforeAll(async () => {
  access = await startFakeAccessForGateway();
  upstream = await startRecordingUpstream();
  gw = await startGateway(access, {
    REDIS_URL: testRedisUrl(),
    CLIENT_ADDRESS_HEADER: 'X-Forwarded-For',
    CLIENT_REQUESTS_IN_FLIGHT: String(IN_FLIGHT),
    AUTH_FAILURES_PER_MINUTE: '2',
    ISSUES_URL: upstream.url,
    STATISTICS_URL: upstream.url,
    AGENT_URL: upstream.url,
  });
  await whenReady(gw.gateway.redis);
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
  await access.close();
});
beforeEach(() => {
  upstream.received.length = 0;
  upstream.setHanging(false);
});

const newClient = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

function knownToken(): string {
  const token = newToken();
  access.tokens.set(tokenHashOf(token), principalOf());
  return token;
}

/** A raw connection to the gateway: what it has answered so far, and whether the connection ended or broke. */
function connect() {
  const { port } = new URL(gw.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  let received = '';
  let broken: string | null = null;
  let ended = false;
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  socket.on('error', (err: NodeJS.ErrnoException) => (broken = err.code ?? err.message));
  socket.on('close', () => (ended = true));
  return {
    socket,
    // A write the connection no longer takes (closed or reset by the gateway) breaks it, as EPIPE does a client's upload.
    write: (text: string | Buffer) =>
      new Promise<void>((resolve) =>
        socket.write(text, (err?: Error | null) => {
          if (err) broken ??= (err as NodeJS.ErrnoException).code ?? err.message;
          resolve();
        }),
      ),
    status: () => (/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? null),
    received: () => received,
    broken: () => broken,
    ended: () => ended,
    answered: (ms = 3000) => until(() => /\r\n\r\n/.test(received) && received.includes('}'), ms),
  };
}

async function until(condition: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return condition();
}

const head = (token: string, client: string, extra: string) =>
  `POST /api/v1/issues HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer ${token}\r\nX-Forwarded-For: ${client}\r\nContent-Type: application/json\r\n${extra}\r\n`;

describe('a made-up token costs no body', () => {
  test('when a request announces a 1 MiB body with a made-up token and sends none of it, then 401 comes at once, from the headers alone', async () => {
    const c = connect();
    await c.write(head(newToken(), newClient(), 'Content-Length: 1048576\r\n'));
    expect(await c.answered(2000)).toBe(true);
    expect(c.status()).toBe('401');
    c.socket.destroy();
  });

  test('when the client is blocked for its failures, then its made-up tokens are 429 before their bodies as well', async () => {
    const client = newClient();
    for (let i = 0; i < 2; i++) {
      const c = connect();
      await c.write(head(newToken(), client, 'Content-Length: 2\r\n') + '{}');
      await c.answered();
      expect(c.status()).toBe('401');
      c.socket.destroy();
    }
    const c = connect();
    await c.write(head(newToken(), client, 'Content-Length: 1048576\r\n'));
    expect(await c.answered(2000)).toBe(true);
    expect(c.status()).toBe('429');
    c.socket.destroy();
  });

  test('when a body is still on its way after a refusal, then it is read off and dropped, and the connection serves the next request', async () => {
    const c = connect();
    await c.write(head(newToken(), newClient(), 'Content-Length: 100000\r\n'));
    await c.answered();
    expect(c.status()).toBe('401');
    await c.write(Buffer.alloc(100_000, 0x20));
    const before = c.received().length;
    await c.write(`GET /api/v1/me HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer ${knownToken()}\r\n\r\n`);
    expect(await until(() => /HTTP\/1\.1 200/.test(c.received().slice(before)), 3000)).toBe(true);
    c.socket.destroy();
  });

  test('when a client goes on sending past the lingering bound, then the connection is cut off', async () => {
    const c = connect();
    await c.write(head(newToken(), newClient(), 'Transfer-Encoding: chunked\r\n'));
    await c.answered();
    const chunk = Buffer.from(`10000\r\n${' '.repeat(0x10000)}\r\n`);
    for (let sent = 0; sent <= LINGER.bytes + 0x20000 && !c.ended() && !c.broken(); sent += 0x10000) c.socket.write(chunk);
    expect(await until(() => c.ended(), 5000)).toBe(true);
  });
});

describe('requests in flight per client address', () => {
  test('when a client has its limit of requests in progress, then its next one is 429 at once while another client goes on', async () => {
    upstream.setHanging(true);
    const client = newClient();
    const token = knownToken();
    const pending = Array.from({ length: IN_FLIGHT }, () => connect());
    for (const c of pending) await c.write(head(token, client, 'Content-Length: 1048576\r\n'));
    await until(() => false, 200);
    const over = connect();
    await over.write(head(token, client, 'Content-Length: 2\r\n') + '{}');
    expect(await over.answered()).toBe(true);
    expect(over.status()).toBe('429');
    expect(over.received()).toContain(`at most ${IN_FLIGHT} at once`);

    const other = connect();
    await other.write(head(knownToken(), newClient(), 'Content-Length: 2\r\n') + '{}');
    await until(() => upstream.received.length === 1, 3000);
    expect(upstream.received).toHaveLength(1);
    for (const c of [...pending, over, other]) c.socket.destroy();

    // Once they are gone, the client has its places back.
    upstream.setHanging(false);
    await until(() => false, 100);
    const again = connect();
    await again.write(head(token, client, 'Content-Length: 2\r\n') + '{}');
    await again.answered();
    expect(again.status()).toBe('200');
    again.socket.destroy();
  });
});

describe('the token is checked again once the body is in', () => {
  test('when the token is revoked while its body is on the way, then 401 and nothing is forwarded', async () => {
    const token = knownToken();
    const c = connect();
    const before = access.resolves();
    await c.write(head(token, newClient(), 'Content-Length: 16\r\n') + '{"title":');
    expect(await until(() => access.resolves() > before, 2000)).toBe(true);
    access.tokens.delete(tokenHashOf(token));
    await c.write('"late"}');
    await c.answered();
    expect(c.status()).toBe('401');
    expect(upstream.received).toEqual([]);
    c.socket.destroy();
  });
});

describe('a refusal the client can read', () => {
  test('when a chunked upload goes on past 1 MiB after the 413 was sent, then the client finishes it and reads the 413 rather than a broken pipe, every time', async () => {
    const outcomes: string[] = [];
    const chunk = Buffer.from(`10000\r\n${'x'.repeat(0x10000)}\r\n`);
    for (let i = 0; i < 5; i++) {
      const c = connect();
      await c.write(head(knownToken(), newClient(), 'Transfer-Encoding: chunked\r\n'));
      for (let sent = 0; sent < 1.5 * 1024 * 1024; sent += 0x10000) await c.write(chunk);
      // A slow link: the rest comes after the gateway has answered.
      await until(() => c.status() !== null, 2000);
      await until(() => false, 50);
      for (let sent = 0; sent < 1024 * 1024 && !c.broken(); sent += 0x10000) await c.write(chunk);
      await c.write('0\r\n\r\n');
      await until(() => false, 50);
      outcomes.push(`${c.status()} ${c.broken() ?? 'intact'}`);
      c.socket.destroy();
    }
    expect(outcomes).toEqual(Array(5).fill('413 intact'));
  });

  test('when fetch streams a 3 MiB body, then it gets the 413 answer, not a failed upload', async () => {
    const outcomes: string[] = [];
    for (let i = 0; i < 10; i++) {
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 3 * 1024 * 1024) return controller.close();
          sent += 0x10000;
          controller.enqueue(new Uint8Array(0x10000).fill(0x20));
        },
      });
      const outcome = await fetch(`${gw.url}/api/v1/issues`, {
        method: 'POST',
        headers: { authorization: `Bearer ${knownToken()}`, 'content-type': 'application/json', 'x-forwarded-for': newClient() },
        body,
        duplex: 'half',
      } as RequestInit).then(
        async (response) => `${response.status} ${((await response.json()) as { code: string }).code}`,
        (err: Error & { cause?: { code?: string } }) => `failed ${err.cause?.code ?? err.message}`,
      );
      outcomes.push(outcome);
    }
    expect(outcomes).toEqual(Array(10).fill('413 payload_too_large'));
  });
});
