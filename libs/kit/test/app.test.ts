import http from 'node:http';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { createServiceApp, principalOf } from '../src/app';
import { AppError, type ErrorCode } from '../src/errors';
import { createLogger } from '../src/logger';
import { devSigningKey } from '@tracker/signing';
import { issueTicket, type Principal } from '../src/principal';
import { as, ticketedFetch as fetch, ticketOptions } from './tickets';
import { serve, type RunningServer } from '../src/server';
import { parseBody, parseId } from '../src/validation';

const logger = createLogger('test', 'silent');
const LEAKY_MESSAGE = 'connection to db-password-hunter2 refused';
const MiB = 1024 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const user: Principal = { kind: 'user', userId: 11, workspaceId: 4, workspaceRole: 'member', tokenId: 99 };
const service: Principal = { kind: 'service', service: 'statistics' };

const healthy = () => Promise.resolve('ok');
const checks: Record<'database' | 'cache', () => Promise<unknown>> = { database: healthy, cache: healthy };

interface StartOptions {
  closers?: Array<() => Promise<unknown>>;
  onSlowFinished?: () => void;
}

function start(options: StartOptions = {}): Promise<RunningServer> {
  const Echo = z.strictObject({ name: z.string() });
  const app = createServiceApp({
    ...ticketOptions(),
    internalCallers: { 'GET /internal/whoami': ['statistics'] },
    logger,
    readiness: { database: () => checks.database(), cache: () => checks.cache() },
    routes: (router) => {
      router.get('/api/v1/me', (_req, res) => {
        res.json(principalOf(res));
      });
      router.post('/api/v1/echo', (req, res) => {
        res.json(parseBody(Echo, req.body));
      });
      router.post('/api/v1/things', (_req, res) => {
        res.status(201).json({ id: 1 });
      });
      router.get('/api/v1/typed', (_req, res) => {
        res.type('json').json({ typed: true });
      });
      router.get('/api/v1/things/:thing_id', (req, res) => {
        res.json({ id: parseId('thing_id', req.params.thing_id) });
      });
      router.get('/api/v1/fail/:code', (req) => {
        throw new AppError(req.params.code as ErrorCode, `failing with ${req.params.code}`);
      });
      router.get('/api/v1/conflict', () => {
        throw new AppError('version_conflict', 'The issue changed meanwhile.', { fields: { version: 4 }, headers: { 'Retry-After': '17' } });
      });
      router.get('/api/v1/boom', () => {
        throw new Error(LEAKY_MESSAGE);
      });
      router.get('/api/v1/boom-async', async () => {
        await sleep(1);
        throw new Error(LEAKY_MESSAGE);
      });
      router.get('/api/v1/slow', async (req, res) => {
        res.on('finish', () => options.onSlowFinished?.());
        const gone = new AbortController();
        res.on('close', () => gone.abort());
        const waited = await sleep(Number(req.query.ms ?? 300), true, { signal: gone.signal }).catch(() => false);
        if (waited) res.json({ done: true });
      });
      router.get('/internal/whoami', (_req, res) => {
        res.json(res.locals.principal);
      });
    },
  });
  return serve(app, { port: 0, host: '127.0.0.1', logger, graceMs: 500, closers: options.closers });
}

let running: RunningServer;
let base: string;
beforeAll(async () => {
  running = await start();
  base = `http://127.0.0.1:${running.port}`;
});
afterAll(() => running.shutdown());
afterEach(() => {
  checks.database = healthy;
  checks.cache = healthy;
});

async function call(path: string, init: RequestInit = {}) {
  const res = await fetch(base + path, init);
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

const problem = (status: number, code: string) => ({
  type: `https://tracker.dev/problems/${code.replace(/_/g, '-')}`,
  title: expect.any(String),
  status,
  detail: expect.any(String),
  code,
});

const postJson = (raw: string, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...as(user), ...headers },
  body: raw,
});

function connectionRefused(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

describe('request ids', () => {
  test('when a request carries no X-Request-Id, then a new UUID is answered', async () => {
    const res = await call('/healthz');
    expect(res.headers.get('x-request-id')).toMatch(UUID);
  });

  test('when two requests carry no X-Request-Id, then each gets its own', async () => {
    const [a, b] = await Promise.all([call('/healthz'), call('/healthz')]);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  test.each([
    ['a gateway UUID', '3b241101-e2bb-4255-8caf-4136c566a962'],
    ['letters, digits and ._:-', 'gw.1:abc_DEF-9'],
    ['128 characters', 'r'.repeat(128)],
  ])('when the X-Request-Id is %s, then it is echoed back', async (_name, id) => {
    const res = await call('/healthz', { headers: { 'x-request-id': id } });
    expect(res.headers.get('x-request-id')).toBe(id);
  });

  test.each([
    ['contains spaces', 'abc def'],
    ['is 129 characters long', 'r'.repeat(129)],
    ['is 200 characters long', 'r'.repeat(200)],
    ['contains a slash', 'a/b'],
    ['contains a quote', 'a"b'],
  ])('when the X-Request-Id %s, then a new UUID replaces it', async (_name, id) => {
    const res = await call('/healthz', { headers: { 'x-request-id': id } });
    expect(res.headers.get('x-request-id')).toMatch(UUID);
  });
});

describe('headers on every answer', () => {
  test.each<[string, string, RequestInit | undefined, number]>([
    ['GET /healthz', '/healthz', undefined, 200],
    ['GET /readyz', '/readyz', undefined, 200],
    ['an API route', '/api/v1/me', { headers: as(user) }, 200],
    ['an unknown route', '/nowhere', undefined, 404],
    ['a request without principal', '/api/v1/me', undefined, 401],
    ['an AppError', '/api/v1/fail/forbidden', { headers: as(user) }, 403],
    ['an unexpected error', '/api/v1/boom', { headers: as(user) }, 500],
    ['malformed JSON', '/api/v1/echo', postJson('{'), 422],
  ])('when answering %s, then Cache-Control is no-store, nosniff is set and X-Powered-By is absent', async (_name, path, init, status) => {
    const res = await call(path, init);
    expect(res.status).toBe(status);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-powered-by')).toBeNull();
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(res.headers.get('etag')).toBeNull();
  });
});

describe('media types (JSON has no charset parameter: exactly the OpenAPI document\'s types)', () => {
  test.each<[string, string, RequestInit | undefined, number]>([
    ['GET /healthz', '/healthz', undefined, 200],
    ['GET /readyz', '/readyz', undefined, 200],
    ['an API route', '/api/v1/me', { headers: as(user) }, 200],
    ['a 201', '/api/v1/things', { method: 'POST', headers: as(user) }, 201],
    ['a route that set the type through express first', '/api/v1/typed', { headers: as(user) }, 200],
    ['an /internal route', '/internal/whoami', { headers: as(service) }, 200],
  ])('when answering %s, then Content-Type is exactly application/json', async (_name, path, init, status) => {
    const res = await call(path, init);
    expect({ status: res.status, type: res.headers.get('content-type') }).toEqual({ status, type: 'application/json' });
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(res.text));
    expect(res.body).toBeDefined();
  });

  test('when a JSON answer holds text beyond ASCII, then it is sent as UTF-8 and its length counts bytes', async () => {
    const res = await call('/api/v1/echo', postJson('{"name":"Zoë 🐛"}'));
    expect({ type: res.headers.get('content-type'), length: Number(res.headers.get('content-length')), body: res.body }).toEqual({
      type: 'application/json',
      length: Buffer.byteLength('{"name":"Zoë 🐛"}'),
      body: { name: 'Zoë 🐛' },
    });
  });

  test('when HEAD /healthz is asked, then application/json and no body', async () => {
    const res = await call('/healthz', { method: 'HEAD' });
    expect({ status: res.status, type: res.headers.get('content-type'), text: res.text }).toEqual({ status: 200, type: 'application/json', text: '' });
  });

  test.each<[string, string, RequestInit | undefined, number]>([
    ['an unknown route', '/nowhere', undefined, 404],
    ['a request without principal', '/api/v1/me', undefined, 401],
    ['an AppError', '/api/v1/fail/forbidden', { headers: as(user) }, 403],
    ['an AppError with headers', '/api/v1/conflict', { headers: as(user) }, 409],
    ['an unexpected error', '/api/v1/boom', { headers: as(user) }, 500],
    ['malformed JSON', '/api/v1/echo', postJson('{'), 422],
    ['a body over the limit', '/api/v1/echo', postJson(`{"name":"${'x'.repeat(MiB)}"}`), 413],
  ])('when answering %s, then Content-Type is exactly application/problem+json', async (_name, path, init, status) => {
    const res = await call(path, init);
    expect({ status: res.status, type: res.headers.get('content-type') }).toEqual({ status, type: 'application/problem+json' });
    expect(res.body).toMatchObject({ status });
  });
});

describe('errors', () => {
  test.each(['/api/v1/boom', '/api/v1/boom-async'])(
    'when %s throws a plain Error, then 500 problem+json without its message or stack',
    async (path) => {
      const res = await call(path, { headers: as(user) });
      expect(res.status).toBe(500);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.body).toEqual(problem(500, 'internal_error'));
      expect(res.text).not.toContain(LEAKY_MESSAGE);
      expect(res.text).not.toContain('hunter2');
      expect(res.text).not.toMatch(/stack|\.ts:\d+|at .+\(/);
    },
  );

  test.each([
    ['not_found', 404],
    ['forbidden', 403],
    ['unauthorized', 401],
    ['last_active_admin', 409],
    ['rate_limited', 429],
    ['statistics_unavailable', 503],
  ])('when a route throws AppError %s, then %d with that code and its detail', async (code, status) => {
    const res = await call(`/api/v1/fail/${code}`, { headers: as(user) });
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body).toEqual({ ...problem(status, code), detail: `failing with ${code}` });
  });

  test('when an AppError carries fields and headers, then both reach the answer', async () => {
    const res = await call('/api/v1/conflict', { headers: as(user) });
    expect(res.status).toBe(409);
    expect(res.headers.get('retry-after')).toBe('17');
    expect(res.body).toEqual({ ...problem(409, 'version_conflict'), detail: 'The issue changed meanwhile.', version: 4 });
  });

  test.each([
    ['/nowhere', undefined],
    ['/api/v1/nowhere', { headers: as(user) }],
    ['/healthz', { method: 'DELETE' }],
  ])('when %s is not a route, then 404 not_found problem', async (path, init) => {
    const res = await call(path, init);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body).toEqual(problem(404, 'not_found'));
  });

  test('when a path id is not an integer, then 422 naming the parameter', async () => {
    const res = await call('/api/v1/things/abc', { headers: as(user) });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ ...problem(422, 'validation_failed'), errors: [{ path: 'thing_id', message: expect.any(String) }] });
  });

  // docs/decisions.md (Errors): a path id that is not an integer from 1 to 2147483647 is 422; bad input is never a 500.
  test.each(['%', '%E0%A4%A'])('when a path id is a broken percent-encoding (%s), then 422 validation_failed, not 500', async (raw) => {
    const res = await call(`/api/v1/things/${raw}`, { headers: as(user) });
    expect({ status: res.status, code: res.body?.code }).toEqual({ status: 422, code: 'validation_failed' });
  });
});

describe('request bodies', () => {
  test('when a JSON body is valid, then the route receives it parsed', async () => {
    const res = await call('/api/v1/echo', postJson('{"name":"Ada"}'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: 'Ada' });
  });

  test.each([
    ['truncated', '{"name":'],
    ['not JSON at all', 'name=Ada'],
    ['a bare string (strict mode)', '"Ada"'],
  ])('when the JSON body is %s, then 422 validation_failed at (body)', async (_name, raw) => {
    const res = await call('/api/v1/echo', postJson(raw));
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body).toEqual({ ...problem(422, 'validation_failed'), errors: [{ path: '(body)', message: expect.any(String) }] });
  });

  test('when the body has an unknown field, then 422 listing it', async () => {
    const res = await call('/api/v1/echo', postJson('{"name":"Ada","admin":true}'));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ path: 'admin', message: 'unknown field' }]);
  });

  test.each(['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx'])(
    'when a POST body is sent as %s, then 422 validation_failed',
    async (contentType) => {
      const res = await call('/api/v1/echo', postJson('{"name":"Ada"}', { 'content-type': contentType }));
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ ...problem(422, 'validation_failed'), errors: [{ path: '(body)', message: expect.any(String) }] });
    },
  );

  const bodyOfSize = (bytes: number) => `{"name":"${'x'.repeat(bytes - '{"name":""}'.length)}"}`;

  test('when the body is exactly 1 MiB, then it is accepted', async () => {
    const raw = bodyOfSize(MiB);
    expect(Buffer.byteLength(raw)).toBe(MiB);
    const res = await call('/api/v1/echo', postJson(raw));
    expect(res.status).toBe(200);
    expect(res.body.name).toHaveLength(MiB - 11);
  });

  test('when the body is one byte over 1 MiB, then 413 payload_too_large', async () => {
    const res = await call('/api/v1/echo', postJson(bodyOfSize(MiB + 1)));
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body).toEqual(problem(413, 'payload_too_large'));
  });

  test('when the body is 5 MiB, then 413 payload_too_large', async () => {
    const res = await call('/api/v1/echo', postJson(bodyOfSize(5 * MiB)));
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
  });
});

describe('health', () => {
  test('when /healthz is asked, then 200 naming the service', async () => {
    const res = await call('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', service: 'issues' });
  });

  test('when every readiness check passes, then /readyz is 200 listing each as ok', async () => {
    const res = await call('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', service: 'issues', checks: { database: 'ok', cache: 'ok' } });
  });

  test.each<[string, () => Promise<unknown>]>([
    ['rejects', () => Promise.reject(new Error('ECONNREFUSED'))],
    ['throws synchronously', () => {
      throw new Error('no client');
    }],
  ])('when a readiness check %s, then /readyz is 503 naming that check unavailable', async (_name, failing) => {
    checks.cache = failing;
    const res = await call('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'not_ready', service: 'issues', checks: { database: 'ok', cache: 'unavailable' } });
  });

  test('when a readiness check never settles, then /readyz answers 503 after about 2 s', async () => {
    checks.database = () => new Promise(() => {});
    const started = Date.now();
    const res = await call('/readyz');
    const elapsed = Date.now() - started;
    expect(res.status).toBe(503);
    expect(res.body.checks).toEqual({ database: 'unavailable', cache: 'ok' });
    expect(elapsed).toBeGreaterThanOrEqual(1900);
    expect(elapsed).toBeLessThan(5000);
  }, 10_000);
});

describe('principal', () => {
  test.each<[string, Record<string, string>]>([
    ['no principal header', {}],
    ['a user ticket signed by a service', { 'x-tracker-principal': issueTicket(devSigningKey('statistics'), { audience: 'issues', method: 'GET', path: '/api/v1/me', user }) }],
    ['an expired ticket', { 'x-tracker-principal': issueTicket(devSigningKey('gateway'), { audience: 'issues', method: 'GET', path: '/api/v1/me', user }, Date.now() - 60_000) }],
    ['a service principal', as(service)],
    ['garbage', { 'x-tracker-principal': 'v1.abc.def' }],
  ])('when an /api/v1 request has %s, then 401 unauthorized and the route does not run', async (_name, headers) => {
    const res = await call('/api/v1/me', { headers });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(problem(401, 'unauthorized'));
  });

  test('when an unknown /api/v1 route is asked without a principal, then 401, so routes are not revealed', async () => {
    const res = await call('/api/v1/nowhere');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
  });

  test('when an /api/v1 request carries a gateway ticket made for it, then the route runs and principalOf gives it', async () => {
    const res = await call('/api/v1/me', { headers: as(user) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(user);
  });

  test('when /internal is called with a service principal, then the route runs', async () => {
    const res = await call('/internal/whoami', { headers: as(service) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(service);
  });

  test('when /internal is called with a user principal, then 401', async () => {
    const res = await call('/internal/whoami', { headers: as(user) });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
  });

  test('when a service not listed for an /internal route calls it, then 403 and the route does not run', async () => {
    for (const caller of ['gateway', 'access', 'agent'] as const) {
      const res = await call('/internal/whoami', { headers: as({ kind: 'service', service: caller }) });
      expect({ caller, status: res.status, body: res.body }).toEqual({ caller, status: 403, body: problem(403, 'forbidden') });
    }
  });

  test('when a request without a valid ticket carries a malformed body, then 401 before the body is looked at (no parse for forgeries)', async () => {
    const res = await call('/api/v1/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":' });
    expect(res.body).toEqual(problem(401, 'unauthorized'));
  });

  test('when a ticket is sent a second time, then the repeat is 401 and the route does not run again', async () => {
    const ticket = issueTicket(devSigningKey('gateway'), { audience: 'issues', method: 'POST', path: '/api/v1/echo', body: Buffer.from('{"name":"Ada"}'), user });
    const send = () => call('/api/v1/echo', { method: 'POST', headers: { 'content-type': 'application/json', 'x-tracker-principal': ticket }, body: '{"name":"Ada"}' });
    expect((await send()).status).toBe(200);
    expect((await send()).body).toEqual(problem(401, 'unauthorized'));
  });

  test('when the body is compressed, then the ticket covers the bytes as sent, and the route gets them decoded', async () => {
    const compressed = gzipSync('{"name":"Ada"}');
    const res = await call('/api/v1/echo', { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', ...as(user) }, body: compressed });
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { name: 'Ada' } });
  });

  test('when a GET carries a body, then the ticket must cover it too', async () => {
    const ticket = issueTicket(devSigningKey('gateway'), { audience: 'issues', method: 'GET', path: '/api/v1/me', user });
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = http.request(`${base}/api/v1/me`, { method: 'GET', headers: { 'content-type': 'text/plain', 'content-length': '8', 'x-tracker-principal': ticket } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.end('smuggled');
    });
    expect(status).toBe(401);
  });
});

describe('graceful shutdown', () => {
  test('when shutdown starts during a request, then the request completes, the port closes, and the closers run afterwards', async () => {
    const events: string[] = [];
    const server = await start({
      onSlowFinished: () => events.push('request finished'),
      closers: [
        async () => {
          events.push('close database');
        },
        async () => {
          events.push('close broker');
        },
      ],
    });
    const inFlight = fetch(`http://127.0.0.1:${server.port}/api/v1/slow?ms=300`, { headers: as(user) });
    await sleep(100);
    const stopping = server.shutdown();

    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ done: true });
    await stopping;

    expect(events).toEqual(['request finished', 'close database', 'close broker']);
    expect(server.server.listening).toBe(false);
    expect(await connectionRefused(server.port)).toBe('ECONNREFUSED');
  });

  test('when shutdown has begun, then new connections are refused while the in-flight request drains', async () => {
    const server = await start();
    const inFlight = fetch(`http://127.0.0.1:${server.port}/api/v1/slow?ms=300`, { headers: as(user) });
    await sleep(100);
    const stopping = server.shutdown();
    expect(await connectionRefused(server.port)).toBe('ECONNREFUSED');
    expect((await inFlight).status).toBe(200);
    await stopping;
  });

  test('when a closer fails, then the later closers still run and shutdown resolves once, however often it is called', async () => {
    const ran: string[] = [];
    const server = await start({
      closers: [
        async () => {
          ran.push('first');
          throw new Error('broker already gone');
        },
        async () => {
          ran.push('second');
        },
      ],
    });
    const first = server.shutdown();
    const second = server.shutdown();
    expect(second).toBe(first);
    await expect(first).resolves.toBeUndefined();
    expect(ran).toEqual(['first', 'second']);
  });

  test('when a request outlasts the grace period, then shutdown cuts it off instead of waiting for it', async () => {
    const ran: string[] = [];
    const server = await start({ closers: [async () => ran.push('closed')] });
    const inFlight = fetch(`http://127.0.0.1:${server.port}/api/v1/slow?ms=3000`, { headers: as(user) }).then(
      (r) => r.status,
      () => 'cut off',
    );
    await sleep(100);
    const started = Date.now();
    await server.shutdown();
    expect(Date.now() - started).toBeLessThan(1500);
    expect(await inFlight).toBe('cut off');
    expect(ran).toEqual(['closed']);
  });
});
