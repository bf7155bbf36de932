import http from 'node:http';
import { randomInt } from 'node:crypto';
import { AGENT_CALLS, bodyDigest, checkTicket, INTERNAL_HEADERS, issueTicket, PRINCIPAL_HEADER, type Proofs, type UserPrincipal } from '@tracker/kit';
import { type Signer } from '@tracker/signing';
import { closedPortUrl, devTicketKeys, testRedisUrl, ticketFor } from '@tracker/testing';
import {
  newToken,
  principalOf,
  startFakeAccessForGateway,
  startRecordingUpstream,
  startGateway,
  tokenHashOf,
  whenReady,
  type FakeAccessForGateway,
  type RecordingUpstream,
  type GatewayUnderTest,
} from './harness';

/**
 * The gateway in this process between a client and a fake upstream (issues, statistics
 * and the agent all point at it, so it sees exactly what the gateway forwards), with a
 * fake access service resolving tokens and the real Redis counting. The cache is never
 * fresh here (no access service keeps its key alive), so every token is resolved by the
 * fake access service. Each test uses its own tokens and its own client address (the last
 * entry of X-Forwarded-For), so the per-minute counters of one test never meet another's.
 */
const REQUESTS_PER_TOKEN = 3;
const FAILURES_PER_CLIENT = 3;
const ENV = {
  REDIS_URL: testRedisUrl(),
  RATE_LIMIT_PER_MINUTE: String(REQUESTS_PER_TOKEN),
  AUTH_FAILURES_PER_MINUTE: String(FAILURES_PER_CLIENT),
  CLIENT_ADDRESS_HEADER: 'X-Forwarded-For',
  UPSTREAM_TIMEOUT_MS: '400',
};

let access: FakeAccessForGateway;
let upstream: RecordingUpstream;
let gw: GatewayUnderTest;

beforeAll(async () => {
  access = await startFakeAccessForGateway();
  upstream = await startRecordingUpstream();
  gw = await startGateway(access, { ...ENV, ISSUES_URL: upstream.url, STATISTICS_URL: upstream.url, AGENT_URL: upstream.url, NOTIFICATIONS_URL: upstream.url });
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
  access.setDown(false);
});


/** A client address no other test uses. */
const newClient = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

/** A token the access service knows, and its owner. */
function knownToken(role: 'admin' | 'member' = 'member'): { token: string; principal: UserPrincipal } {
  const token = newToken();
  const principal = principalOf(role);
  access.tokens.set(tokenHashOf(token), principal);
  return { token, principal };
}

interface Sent {
  token?: string;
  client?: string;
  method?: string;
  body?: string;
  headers?: Record<string, string>;
}

async function send(path: string, options: Sent = {}, url = gw.url) {
  const headers: Record<string, string> = { 'x-forwarded-for': options.client ?? newClient(), ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url + path, { method: options.method ?? 'GET', headers, body: options.body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** The problem+json body the gateway answers with, in full. */
const problem = (code: string, title: string, status: number, detail: string) => ({
  type: `https://tracker.dev/problems/${code.replace(/_/g, '-')}`,
  title,
  status,
  detail,
  code,
});

/** The RateLimit-* and Retry-After headers of an answer (null when absent). */
const limitHeaders = (headers: Headers) => ({
  limit: headers.get('ratelimit-limit'),
  remaining: headers.get('ratelimit-remaining'),
  retryAfter: headers.get('retry-after'),
});

/** Seconds left in the current one-minute window. */
const secondsLeftInWindow = () => 60 - (Math.floor(Date.now() / 1000) % 60);

/** Waits for the next window when this one ends within `seconds`, so counted requests stay in one window. */
async function roomInWindow(seconds = 5): Promise<void> {
  const left = secondsLeftInWindow();
  if (left <= seconds) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 50));
}

describe('a request without a valid token is 401 and nothing is forwarded', () => {
  const refusals = [
    ['no Authorization header', {}, 'Bearer realm="tracker"', 'An Authorization: Bearer token is required.'],
    ['Basic credentials', { authorization: 'Basic dXNlcjpwYXNz' }, 'Bearer realm="tracker", error="invalid_request"', 'Only Bearer tokens are accepted.'],
    ['a malformed bearer token', { authorization: 'Bearer not-a-token' }, 'Bearer realm="tracker", error="invalid_token"', 'The token is not valid.'],
  ] as const;

  test.each(refusals)('when the request has %s, then 401 with WWW-Authenticate, and neither access nor the upstream is asked', async (_name, headers, challenge, detail) => {
    const before = access.resolves();
    const res = await send('/api/v1/issues/search', { method: 'POST', body: '{"search":"x"}', headers });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(challenge);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body).toEqual(problem('unauthorized', 'Authentication required', 401, detail));
    expect(limitHeaders(res.headers)).toEqual({ limit: null, remaining: null, retryAfter: null });
    expect(access.resolves()).toBe(before);
    expect(upstream.received).toEqual([]);
  });

  test('when the token is well formed but nobody has it, then 401 invalid_token after asking the access service', async () => {
    const before = access.resolves();
    const res = await send('/api/v1/issues/WEB-1', { token: newToken() });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="tracker", error="invalid_token"');
    expect(res.body).toEqual(problem('unauthorized', 'Authentication required', 401, 'The token is not valid, revoked, or its owner is deactivated.'));
    expect(access.resolves()).toBe(before + 1);
    expect(upstream.received).toEqual([]);
  });

  test('when a token that worked is revoked, then its very next request is 401 and is not forwarded', async () => {
    const { token } = knownToken();
    expect((await send('/api/v1/issues/WEB-1', { token })).status).toBe(200);
    expect(upstream.received).toHaveLength(1);
    access.tokens.delete(tokenHashOf(token));
    const res = await send('/api/v1/issues/WEB-1', { token });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="tracker", error="invalid_token"');
    expect(res.body).toEqual(problem('unauthorized', 'Authentication required', 401, 'The token is not valid, revoked, or its owner is deactivated.'));
    expect(upstream.received).toHaveLength(1);
  });

  test('when a path no service owns is asked with a valid token, then 404 and nothing is forwarded', async () => {
    const { token } = knownToken();
    const res = await send('/api/v1/nowhere', { token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(problem('not_found', 'Not found', 404, 'No route for GET /api/v1/nowhere.'));
    expect(upstream.received).toEqual([]);
  });
});

describe('a request with a valid token is forwarded with a ticket for exactly that request', () => {
  test('when a POST comes with a body, then the upstream gets the same bytes, the request id, and a ticket for this method, URL, body, service and principal', async () => {
    const { token, principal } = knownToken();
    const body = '{"search":"firefox","category":"progress"}';
    const path = '/api/v1/issues/search?limit=5';
    const res = await send(path, { token, method: 'POST', body, headers: { 'x-request-id': 'trace-gw-1' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(res.headers.get('x-request-id')).toBe('trace-gw-1');
    expect(limitHeaders(res.headers)).toEqual({ limit: String(REQUESTS_PER_TOKEN), remaining: String(REQUESTS_PER_TOKEN - 1), retryAfter: null });

    expect(upstream.received).toHaveLength(1);
    const [forwarded] = upstream.received;
    expect(forwarded!.method).toBe('POST');
    expect(forwarded!.url).toBe(path);
    expect(forwarded!.body).toBe(body);
    expect(forwarded!.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(forwarded!.headers['x-request-id']).toBe('trace-gw-1');
    const ticket = forwarded!.headers[PRINCIPAL_HEADER] as string;
    const request = { audience: 'issues' as const, method: 'POST', path, bodyDigest: bodyDigest(Buffer.from(body)) };
    expect(checkTicket(ticket, devTicketKeys('issues'), request)).toEqual(expect.objectContaining({ ok: true, principal }));
    // Good for nothing else: another service, method, URL or body.
    // Another service cannot even check it (tagged under the key the gateway shares with issues) ...
    expect(checkTicket(ticket, devTicketKeys('statistics'), { ...request, audience: 'statistics' })).toEqual({ ok: false, reason: 'bad signature' });
    // ... and its claims name issues alone.
    expect(checkTicket(ticket, devTicketKeys('issues'), { ...request, audience: 'statistics' })).toEqual({ ok: false, reason: 'addressed to another service' });
    expect(checkTicket(ticket, devTicketKeys('issues'), { ...request, method: 'PUT' })).toEqual({ ok: false, reason: 'made for another request' });
    expect(checkTicket(ticket, devTicketKeys('issues'), { ...request, path: '/api/v1/issues/search' })).toEqual({ ok: false, reason: 'made for another request' });
    expect(checkTicket(ticket, devTicketKeys('issues'), { ...request, bodyDigest: bodyDigest(Buffer.from('{}')) })).toEqual({ ok: false, reason: 'made for another request' });
  });

  test.each([
    ['/api/v1/dashboards', 'statistics'],
    ['/api/v1/queues/7/statuses', 'issues'],
    ['/api/v1/events?after=c1_MTI0&types=issue.*', 'notifications'],
    ['/mcp', 'agent'],
  ] as const)('when %s is asked, then the ticket is addressed to the %s service', async (path, audience: Signer) => {
    const { token, principal } = knownToken();
    expect((await send(path, { token })).status).toBe(200);
    const [forwarded] = upstream.received;
    expect(forwarded!.url).toBe(path);
    const check = checkTicket(forwarded!.headers[PRINCIPAL_HEADER] as string, devTicketKeys(audience), { audience, method: 'GET', path, bodyDigest: bodyDigest(Buffer.alloc(0)) });
    expect(check).toEqual(expect.objectContaining({ ok: true, principal }));
  });

  test('when /mcp is asked, then the agent\'s ticket carries a proof for each service the agent calls, which that service alone accepts for the caller', async () => {
    const { token, principal } = knownToken();
    expect((await send('/mcp', { token })).status).toBe(200);
    const [forwarded] = upstream.received;
    const check = checkTicket(forwarded!.headers[PRINCIPAL_HEADER] as string, devTicketKeys('agent'), { audience: 'agent', method: 'GET', path: '/mcp', bodyDigest: bodyDigest(Buffer.alloc(0)) });
    expect(check).toEqual(expect.objectContaining({ ok: true, principal, proofs: expect.any(Object) }));
    const { proofs } = check as { proofs: Proofs };
    for (const service of AGENT_CALLS) {
      // The agent's call to that service, handing its proof on.
      const call = { audience: service, method: 'GET', path: '/api/v1/me' };
      const ticket = issueTicket(devTicketKeys('agent'), { ...call, onBehalfOf: proofs[service] });
      expect(checkTicket(ticket, devTicketKeys(service), { ...call, bodyDigest: bodyDigest(undefined) })).toEqual(expect.objectContaining({ ok: true, principal }));
      const elsewhere = AGENT_CALLS.find((other) => other !== service)!;
      const misdirected = issueTicket(devTicketKeys('agent'), { ...call, audience: elsewhere, onBehalfOf: proofs[service] });
      expect(checkTicket(misdirected, devTicketKeys(elsewhere), { ...call, audience: elsewhere, bodyDigest: bodyDigest(undefined) })).toEqual({ ok: false, reason: 'not a principal its signer may vouch for' });
    }
  });

  test('when the client sends internal headers (a valid admin ticket for this very request), Authorization and Cookie, then the upstream sees none of them, only the gateway ticket for the real caller', async () => {
    const { token, principal } = knownToken('member');
    const admin = { ...principal, workspaceRole: 'admin' as const };
    const path = '/api/v1/issues/WEB-1';
    const forged = ticketFor(admin, { audience: 'issues', method: 'GET', path });
    const internal = Object.fromEntries(INTERNAL_HEADERS.map((name) => [name, forged]));
    const res = await send(path, { token, headers: { ...internal, cookie: 'session=abc' } });
    expect(res.status).toBe(200);

    const [forwarded] = upstream.received;
    expect(forwarded!.headers.authorization).toBeUndefined();
    expect(forwarded!.headers.cookie).toBeUndefined();
    for (const name of INTERNAL_HEADERS) expect(forwarded!.headers[name]).not.toBe(forged);
    const check = checkTicket(forwarded!.headers[PRINCIPAL_HEADER] as string, devTicketKeys('issues'), { audience: 'issues', method: 'GET', path, bodyDigest: bodyDigest(Buffer.alloc(0)) });
    expect(check).toEqual(expect.objectContaining({ ok: true, principal }));
  });

  test('when the body comes chunked, then it is forwarded whole with its Content-Length and a ticket for those bytes', async () => {
    const { token, principal } = knownToken();
    const parts = ['{"title":', '"chunked"}'];
    const path = '/api/v1/issues';
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${gw.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked', 'x-forwarded-for': newClient() },
      });
      req.on('response', (response) => {
        response.resume();
        resolve(response.statusCode!);
      });
      req.on('error', reject);
      req.write(parts[0]);
      setTimeout(() => req.end(parts[1]), 20);
    });
    expect(status).toBe(200);
    const [forwarded] = upstream.received;
    const body = parts.join('');
    expect(forwarded!.body).toBe(body);
    expect(forwarded!.headers['content-length']).toBe(String(body.length));
    expect(forwarded!.headers['transfer-encoding']).toBeUndefined();
    const check = checkTicket(forwarded!.headers[PRINCIPAL_HEADER] as string, devTicketKeys('issues'), { audience: 'issues', method: 'POST', path, bodyDigest: bodyDigest(Buffer.from(body)) });
    expect(check).toEqual(expect.objectContaining({ ok: true, principal }));
  });
});

describe('the per-token rate limit', () => {
  test('when a token makes one request more than its limit in a minute, then 429 with Retry-After and RateLimit-*, and that one is not forwarded', async () => {
    await roomInWindow();
    const { token } = knownToken();
    const remaining: Array<string | null> = [];
    for (let i = 0; i < REQUESTS_PER_TOKEN; i++) {
      const res = await send('/api/v1/issues/WEB-1', { token });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe(String(REQUESTS_PER_TOKEN));
      remaining.push(res.headers.get('ratelimit-remaining'));
    }
    expect(remaining).toEqual(['2', '1', '0']);

    const leftBefore = secondsLeftInWindow();
    const res = await send('/api/v1/issues/WEB-1', { token });
    const leftAfter = secondsLeftInWindow();
    expect(res.status).toBe(429);
    expect(res.body).toEqual(problem('rate_limited', 'Too many requests', 429, `At most ${REQUESTS_PER_TOKEN} requests per minute per token.`));
    const headers = limitHeaders(res.headers);
    expect({ ...headers, retryAfter: undefined }).toEqual({ limit: String(REQUESTS_PER_TOKEN), remaining: '0', retryAfter: undefined });
    expect([String(leftBefore), String(leftAfter)]).toContain(headers.retryAfter);
    expect(upstream.received).toHaveLength(REQUESTS_PER_TOKEN);

    // Another token of the same owner has its own count.
    const other = newToken();
    access.tokens.set(tokenHashOf(other), access.tokens.get(tokenHashOf(token))!);
    expect((await send('/api/v1/issues/WEB-1', { token: other })).status).toBe(200);
  });
});

describe('the failed-authentication limit per client address', () => {
  const tooMany = problem('rate_limited', 'Too many requests', 429, `Too many failed authentications from this client: at most ${FAILURES_PER_CLIENT} per minute.`);

  test('when a client has failed its limit of times, then its made-up tokens are 429 while its valid tokens go on: one address shared by many people is not locked out', async () => {
    await roomInWindow();
    const client = newClient();
    for (let i = 0; i < FAILURES_PER_CLIENT; i++) expect((await send('/api/v1/issues/WEB-1', { token: newToken(), client })).status).toBe(401);

    const leftBefore = secondsLeftInWindow();
    const refused = await send('/api/v1/issues/WEB-1', { token: newToken(), client });
    const leftAfter = secondsLeftInWindow();
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(tooMany);
    expect([String(leftBefore), String(leftAfter)]).toContain(refused.headers.get('retry-after'));
    expect(refused.headers.get('ratelimit-limit')).toBeNull();
    expect(upstream.received).toEqual([]);

    // A flood of made-up tokens from the same address goes on (they reach the access service
    // 20 a second at most, the rest refused at once), and a valid token still gets through
    // once the flood has left it a place.
    const flood = await Promise.all(Array.from({ length: 30 }, () => send('/api/v1/issues/WEB-1', { token: newToken(), client })));
    expect(flood.map((r) => r.status)).toEqual(Array(30).fill(429));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const { token, principal } = knownToken();
    const during = await send('/api/v1/me', { token, client });
    expect(during.status).toBe(200);
    expect(during.body).toEqual({ principal });
    expect(upstream.received).toEqual([]);

    // The client is the last X-Forwarded-For entry (the one the proxy appended).
    expect((await send('/api/v1/issues/WEB-1', { token: newToken(), client: `${newClient()}, ${client}` })).status).toBe(429);
    expect((await send('/api/v1/issues/WEB-1', { token: newToken(), client: `${client}, ${newClient()}` })).status).toBe(401);
  });

  test('when a client has failed its limit of times at one gateway, then another gateway sharing Redis refuses its made-up tokens too, and lets its valid one through', async () => {
    await roomInWindow();
    const client = newClient();
    for (let i = 0; i < FAILURES_PER_CLIENT; i++) expect((await send('/api/v1/issues/WEB-1', { token: newToken(), client })).status).toBe(401);
    const replica = await startGateway(access, { ...ENV, ISSUES_URL: upstream.url });
    try {
      await whenReady(replica.gateway.redis);
      const res = await send('/api/v1/issues/WEB-1', { token: newToken(), client }, replica.url);
      expect(res.status).toBe(429);
      expect(res.body).toEqual(tooMany);
      expect(upstream.received).toEqual([]);
      expect((await send('/api/v1/issues/WEB-1', { token: knownToken().token, client }, replica.url)).status).toBe(200);
    } finally {
      await replica.close();
    }
  });

  test('when requests without a token or with a malformed one come from a client, then they are not counted against it', async () => {
    await roomInWindow();
    const client = newClient();
    for (let i = 0; i < FAILURES_PER_CLIENT + 1; i++) {
      expect((await send('/api/v1/issues/WEB-1', { client })).status).toBe(401);
      expect((await send('/api/v1/issues/WEB-1', { client, headers: { authorization: 'Bearer nope' } })).status).toBe(401);
    }
    expect((await send('/api/v1/issues/WEB-1', { token: knownToken().token, client })).status).toBe(200);
  });
});

describe('when a service is away, the answer is 503 with Retry-After', () => {
  const authUnavailable = problem('service_unavailable', 'Service unavailable', 503, 'Authentication is temporarily unavailable. Retry later.');

  test('when the access service fails, then a token it must resolve is 503 service_unavailable, nothing is forwarded, and no failure is counted', async () => {
    await roomInWindow();
    const { token } = knownToken();
    const client = newClient();
    access.setDown(true);
    for (let i = 0; i < FAILURES_PER_CLIENT + 1; i++) {
      const res = await send('/api/v1/issues/WEB-1', { token, client });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.body).toEqual(authUnavailable);
    }
    expect(upstream.received).toEqual([]);
    access.setDown(false);
    // A new token: each of those requests counted against the first one's own limit.
    expect((await send('/api/v1/issues/WEB-1', { token: knownToken().token, client })).status).toBe(200);
  });

  test('when nobody listens at the access service address, then 503 service_unavailable as well', async () => {
    const gone = await startGateway(access, { ...ENV, ACCESS_URL: await closedPortUrl(), ISSUES_URL: upstream.url });
    try {
      const res = await send('/api/v1/issues/WEB-1', { token: knownToken().token }, gone.url);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.body).toEqual(authUnavailable);
      expect(upstream.received).toEqual([]);
    } finally {
      await gone.close();
    }
  });

  test.each([
    ['/api/v1/issues/WEB-1', 'GET', problem('service_unavailable', 'Service unavailable', 503, 'The issues service is temporarily unavailable. Retry later.')],
    ['/api/v1/statistics', 'POST', problem('statistics_unavailable', 'Statistics unavailable', 503, 'The statistics service is temporarily unavailable. Retry later.')],
    ['/api/v1/events', 'GET', problem('service_unavailable', 'Service unavailable', 503, 'The notifications service is temporarily unavailable. Retry later.')],
  ] as const)('when nobody listens at the upstream of %s, then 503 with its code', async (path, method, expected) => {
    const down = await closedPortUrl();
    const gone = await startGateway(access, { ...ENV, ISSUES_URL: down, STATISTICS_URL: down, NOTIFICATIONS_URL: down });
    try {
      const res = await send(path, { token: knownToken().token, method, body: method === 'POST' ? '{}' : undefined }, gone.url);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.body).toEqual(expected);
    } finally {
      await gone.close();
    }
  });

  test.each([
    ['/api/v1/issues/WEB-1', 'GET', problem('service_unavailable', 'Service unavailable', 503, 'The issues service is temporarily unavailable. Retry later.')],
    ['/api/v1/statistics', 'POST', problem('statistics_unavailable', 'Statistics unavailable', 503, 'The statistics service is temporarily unavailable. Retry later.')],
  ] as const)('when the upstream of %s takes the request and never answers, then 503 with its code after the upstream timeout', async (path, method, expected) => {
    upstream.setHanging(true);
    const started = Date.now();
    const res = await send(path, { token: knownToken().token, method, body: method === 'POST' ? '{}' : undefined });
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.body).toEqual(expected);
    expect(upstream.received).toHaveLength(1);
  });
});

/**
 * What the kit's base app gives every request holds for the proxied paths too, whether
 * the gateway answers itself or the upstream does, and each is counted by route template.
 */
describe('every answer, proxied or not, carries the request id and the common headers', () => {
  const common = (headers: Headers) => ({
    requestId: /^[0-9a-f-]{36}$/.test(headers.get('x-request-id') ?? ''),
    cacheControl: headers.get('cache-control'),
    noSniff: headers.get('x-content-type-options'),
  });
  const expected = { requestId: true, cacheControl: 'no-store', noSniff: 'nosniff' };

  test('when a request is forwarded, refused by the gateway, or served by express, then each answer has a request id, no-store and nosniff', async () => {
    const forwarded = await send('/api/v1/issues/WEB-1', { token: knownToken().token });
    const refused = await send('/api/v1/issues/WEB-1');
    // Not a GET: a GET of a path outside the API is a web page's (web-route.test.ts).
    const unknown = await send('/nowhere', { method: 'POST' });
    const health = await send('/healthz');
    expect([forwarded.status, refused.status, unknown.status, health.status]).toEqual([200, 401, 404, 200]);
    for (const answer of [forwarded, refused, unknown, health]) expect(common(answer.headers)).toEqual(expected);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
  });

  test('when the caller sends a malformed request id, then the answer and the upstream carry a fresh one instead', async () => {
    const res = await send('/api/v1/issues/WEB-1', { token: knownToken().token, headers: { 'x-request-id': 'not ok!' } });
    expect(common(res.headers)).toEqual(expected);
    expect(upstream.received.at(-1)!.headers['x-request-id']).toBe(res.headers.get('x-request-id'));
  });

  test.each(['/api/v1/me', '/mcp', '/healthz'])('when OPTIONS %s is sent, then 404 problem+json and nothing is forwarded', async (path) => {
    const res = await send(path, { method: 'OPTIONS', token: knownToken().token });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body).toEqual(problem('not_found', 'Not found', 404, `No route for OPTIONS ${path}.`));
    expect(upstream.received).toHaveLength(0);
  });

  test('when the API prefix is sent in capitals, then it is an API request (express mounts paths case-insensitively): 401 without a token', async () => {
    expect((await send('/API/V1/issues/WEB-1')).status).toBe(401);
    expect((await send('/api/v1x/issues')).status).toBe(404);
  });

  test('when API requests are answered, then the metrics count them by route template and status, and every answer before authentication under one label', async () => {
    const { token } = knownToken();
    await send('/api/v1/issues/WEB-7/comments', { token });
    await send('/api/v1/issues/WEB-8/comments');
    const counted = await gw.gateway.metrics.http.requests.get();
    const count = (route: string, status: string) => counted.values.find((v) => v.labels.route === route && v.labels.status === status && v.labels.method === 'GET')?.value;
    expect(count('/api/v1/issues/{key}/comments', '200')).toBeGreaterThanOrEqual(1);
    expect(count('unauthenticated', '401')).toBeGreaterThanOrEqual(1);
    expect(count('/api/v1/issues/{key}/comments', '401')).toBeUndefined();
  });

  test('when thousands of unauthenticated requests come with distinct long paths, then the metrics keep the same series and the same size', async () => {
    const scrape = async () => {
      const text = await gw.gateway.metrics.registry.metrics();
      return { series: text.split('\n').filter((line) => line.startsWith('http_request')).length, bytes: text.length };
    };
    // Distinct in depth and in words: a label made of the path's shape would be a new series each time.
    const stranger = (i: number) => send(`/api/v1/${i % 2 ? 'issues' : 'queues'}/${i}${'/x'.repeat(i)}/${i % 3 ? 'comments' : String(i)}`, { token: i % 4 ? newToken() : undefined, client: newClient() });
    // Once, so each series a stranger can reach exists before the count.
    await Promise.all([0, 1, 2, 3].map(stranger));
    const before = await scrape();
    for (let i = 4; i < 2004; i += 50) await Promise.all(Array.from({ length: 50 }, (_, j) => stranger(i + j)));
    const after = await scrape();
    expect(after.series).toBe(before.series);
    expect(after.bytes).toBeLessThanOrEqual(before.bytes + 200);
  });

});
