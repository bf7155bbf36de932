import http from 'node:http';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { z } from 'zod';
import { createServiceApp } from '../src/app';
import { MAX_FIELD_ERRORS } from '../src/errors';
import { BODY_LIMITS, BODY_MESSAGES } from '../src/json-body';
import { createLogger } from '../src/logger';
import { issueTicket } from '../src/principal';
import { devSigningKey } from '@tracker/signing';
import { as, ticketedFetch as fetch, ticketOptions } from './tickets';
import { serve, SERVER_TIMEOUTS, type RunningServer, type ServerTimeouts } from '../src/server';
import { parseBody } from '../src/validation';

const logger = createLogger('test', 'silent');
const principal = as({ kind: 'user', userId: 1, workspaceId: 1, workspaceRole: 'member', tokenId: 1 })['x-tracker-principal'];

function start(timeouts?: Partial<ServerTimeouts>): Promise<RunningServer> {
  const app = createServiceApp({
    ...ticketOptions(),
    logger,
    routes: (router) => {
      router.post('/api/v1/echo', (req, res) => {
        res.json(parseBody(z.strictObject({ name: z.string().max(10) }), req.body));
      });
    },
  });
  return serve(app, { port: 0, host: '127.0.0.1', logger, graceMs: 200, timeouts });
}

/** Writes raw bytes and collects everything until the server closes the socket. */
function rawExchange(port: number, chunks: Array<string | Buffer>, gapMs = 0): Promise<{ text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (d) => (text += d.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ text, ms: Date.now() - started });
    });
    const queue = [...chunks];
    const next = () => {
      const chunk = queue.shift();
      if (chunk === undefined || socket.destroyed) return clearInterval(timer);
      socket.write(chunk);
    };
    socket.once('connect', () => {
      if (gapMs === 0) queue.splice(0).forEach((c) => socket.write(c));
      else timer = setInterval(next, gapMs);
    });
    setTimeout(() => reject(new Error(`socket still open after 10 s; got: ${text}`)), 10_000).unref();
  });
}

const bodyOf = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));

describe('request bodies', () => {
  let running: RunningServer;
  beforeAll(async () => {
    running = await start();
  });
  afterAll(() => running.shutdown());

  const post = (body: Buffer | string, headers: Record<string, string> = {}) =>
    fetch(`http://127.0.0.1:${running.port}/api/v1/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tracker-principal': principal, ...headers },
      body,
    });

  test.each(['gzip', 'deflate', 'br'])('when Content-Encoding says %s but the bytes are not, then 422, never 500', async (encoding) => {
    const res = await post('{"name":"Ada"}', { 'content-encoding': encoding });
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(await res.json()).toMatchObject({ code: 'validation_failed', errors: [{ path: '(body)', message: expect.any(String) }] });
  });

  test('when a gzip body is valid, then it is read', async () => {
    const res = await post(gzipSync('{"name":"Ada"}'), { 'content-encoding': 'gzip' });
    expect(res.status).toBe(200);
  });

  test('when a small gzip body inflates to more than 1 MiB, then 413 without inflating it all', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 32));
    const started = Date.now();
    const res = await post(bomb, { 'content-encoding': 'gzip' });
    expect(res.status).toBe(413);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  // The most unknown fields a body can reach validation with (BODY_LIMITS.members in all).
  test(`when a body has ${BODY_LIMITS.members - 1} unknown fields, then 422 lists only ${MAX_FIELD_ERRORS} and says how many there were`, async () => {
    const unknown = BODY_LIMITS.members - 1;
    const raw = `{"name":"Ada",${Array.from({ length: unknown }, (_, i) => `"k${i}":1`).join(',')}}`;
    const res = await post(raw);
    const text = await res.text();
    expect(res.status).toBe(422);
    expect(text.length).toBeLessThan(10_000);
    const body = JSON.parse(text);
    expect(body.errors).toHaveLength(MAX_FIELD_ERRORS);
    expect(body.errors[0]).toEqual({ path: 'k0', message: 'unknown field' });
    expect(body.detail).toMatch(`first ${MAX_FIELD_ERRORS} of ${unknown} errors`);
  });

  test('when a body has 60,000 unknown fields, then 422 at (body) before it is parsed, with a small answer', async () => {
    const raw = `{"name":"Ada",${Array.from({ length: 60_000 }, (_, i) => `"k${i}":1`).join(',')}}`;
    const res = await post(raw);
    const text = await res.text();
    expect(res.status).toBe(422);
    expect(text.length).toBeLessThan(10_000);
    expect(JSON.parse(text).errors).toEqual([{ path: '(body)', message: BODY_MESSAGES.members }]);
  });

  test('when a body has a few errors, then every one is listed and the detail is unchanged', async () => {
    const res = await post('{"name":"far too long a name","a":1}');
    const body = (await res.json()) as { errors: unknown[]; detail: string };
    expect(body.errors).toHaveLength(2);
    expect(body.detail).toBe('The request body is not valid.');
  });
});

describe('server timeouts', () => {
  test('serve() bounds header and request time by default', async () => {
    expect(SERVER_TIMEOUTS).toEqual({ headersMs: 10_000, requestMs: 30_000, checkIntervalMs: 1_000 });
    const running = await start();
    try {
      expect(running.server.headersTimeout).toBe(10_000);
      expect(running.server.requestTimeout).toBe(30_000);
    } finally {
      await running.shutdown();
    }
  });

  describe('with short limits', () => {
    let running: RunningServer;
    beforeAll(async () => {
      running = await start({ headersMs: 400, requestMs: 900, checkIntervalMs: 50 });
    });
    afterAll(() => running.shutdown());

    test('when a client sends its headers byte by byte (slowloris), then it gets 408 problem+json and is disconnected', async () => {
      const request = 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Padding: ' + 'a'.repeat(200);
      const { text, ms } = await rawExchange(running.port, request.split(''), 20);
      expect(text).toMatch(/^HTTP\/1\.1 408 /);
      expect(text).toMatch(/\r\ncontent-type: application\/problem\+json\r\n/i);
      expect(bodyOf(text)).toMatchObject({ status: 408, code: 'request_timeout' });
      expect(ms).toBeLessThan(1500);
    });

    test('when a client sends its body byte by byte, then it is cut off after the request timeout', async () => {
      const body = '{"name":"' + 'a'.repeat(300) + '"}';
      // A valid ticket: the service reads the body only for a request it accepts the header of.
      const ticket = issueTicket(devSigningKey('gateway'), { audience: 'issues', method: 'POST', path: '/api/v1/echo', body: Buffer.from(body), user: { kind: 'user', userId: 1, workspaceId: 1, workspaceRole: 'member', tokenId: 1 } });
      const head = `POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nx-tracker-principal: ${ticket}\r\nContent-Length: ${body.length}\r\n\r\n`;
      const { text, ms } = await rawExchange(running.port, [head, ...body.split('')], 20);
      expect(text).toMatch(/^HTTP\/1\.1 408 /);
      expect(ms).toBeLessThan(2500);
    });

    test('when a keep-alive connection idles longer than the header timeout, then its next request is still served', async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const get = () =>
        new Promise<{ status: number; socket: unknown }>((resolve, reject) => {
          const req = http.get({ port: running.port, host: '127.0.0.1', path: '/healthz', agent }, (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0, socket: req.socket }));
          });
          req.on('error', reject);
        });
      const first = await get();
      await new Promise((r) => setTimeout(r, 1200));
      const second = await get();
      agent.destroy();
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(second.socket).toBe(first.socket);
    });
  });
});

describe('requests Node cannot parse', () => {
  let running: RunningServer;
  beforeAll(async () => {
    running = await start();
  });
  afterAll(() => running.shutdown());

  test('when the headers are larger than Node accepts, then 431 problem+json', async () => {
    const { text } = await rawExchange(running.port, [`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    expect(text).toMatch(/^HTTP\/1\.1 431 /);
    expect(text).toMatch(/\r\ncontent-type: application\/problem\+json\r\n/i);
    expect(bodyOf(text)).toMatchObject({ status: 431, code: 'headers_too_large' });
  });

  test('when OPTIONS is asked of a served path, then 404 without an Allow header (routes are not revealed)', async () => {
    for (const path of ['/api/v1/echo', '/healthz']) {
      const res = await fetch(`http://127.0.0.1:${running.port}${path}`, { method: 'OPTIONS', headers: { 'x-tracker-principal': principal } });
      expect(res.status).toBe(404);
      expect(res.headers.get('allow')).toBeNull();
      expect(res.headers.get('content-type')).toBe('application/problem+json');
    }
  });

  test('when the request line is not HTTP, then 400 problem+json', async () => {
    const { text } = await rawExchange(running.port, ['HELLO THERE\r\n\r\n']);
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(text).toMatch(/\r\ncontent-type: application\/problem\+json\r\n/i);
    expect(text).toMatch(/cache-control: no-store/i);
    expect(bodyOf(text)).toMatchObject({ status: 400, code: 'bad_request' });
  });
});
