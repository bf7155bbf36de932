import { AppError, UpstreamUnavailableError, type UserPrincipal } from '@tracker/kit';
import { hashToken } from '@tracker/authz';
import { blockedClients } from '../src/data-access/blocked-clients';
import { inFlight } from '../src/data-access/in-flight';
import { failureLimitReached, tokenRateLimit } from '../src/domain/authenticate.rules';
import { authenticate, bearerToken, reauthenticate } from '../src/domain/authenticate.use-case';
import type { GatewayDeps } from '../src/domain/deps';
import type { CacheLookup } from '../src/domain/ports';
import { newToken, principalOf } from './harness';

/** The use case with in-memory ports: what it asks of each, and what it decides. */
function fakeDeps(lookup: Partial<CacheLookup> = {}, options: { resolves?: UserPrincipal | null | 'expired' | Error; requestsPerToken?: number; failuresPerClient?: number } = {}) {
  const calls = { lookups: 0, resolves: 0, failures: [] as string[], counted: [] as boolean[], countRequests: 0, used: [] as number[] };
  const deps: GatewayDeps = {
    store: {
      async lookup(_hash, _window, countRequest) {
        calls.lookups++;
        calls.counted.push(countRequest);
        return { token: 'ask-access', requests: 1, failures: 0, ...lookup };
      },
      async countRequest() {
        calls.countRequests++;
        return 5;
      },
      async recordFailure(client) {
        calls.failures.push(client);
      },
    },
    access: {
      async resolve() {
        calls.resolves++;
        if (options.resolves instanceof Error) throw options.resolves;
        return options.resolves ?? null;
      },
    },
    blockedClients: blockedClients(),
    tokenUses: { used: (tokenId) => void calls.used.push(tokenId) },
    blockedClientResolves: inFlight(2),
    limits: { requestsPerToken: options.requestsPerToken ?? 10, failuresPerClient: options.failuresPerClient ?? 3 },
    // 20 s into a window: Retry-After is 40.
    clock: () => new Date(Date.UTC(2026, 0, 1, 12, 0, 20)),
  };
  return { deps, calls };
}

const request = (client = '10.0.0.1') => ({ token: newToken(), client, requestId: 'rid-1' });

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (err: unknown) => err,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

describe('bearerToken', () => {
  test('when the header holds a well-formed bearer token, then that token', () => {
    const token = newToken();
    expect(bearerToken(`Bearer ${token}`)).toBe(token);
  });

  test.each([
    [undefined, 'Bearer realm="tracker"'],
    ['Basic dXNlcjpwYXNz', 'Bearer realm="tracker", error="invalid_request"'],
    ['Bearer nope', 'Bearer realm="tracker", error="invalid_token"'],
  ])('when the header is %s, then 401 with WWW-Authenticate %s', (header, challenge) => {
    let thrown: unknown;
    try {
      bearerToken(header);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).status).toBe(401);
    expect((thrown as AppError).extra.headers).toEqual({ 'WWW-Authenticate': challenge });
  });
});

describe('authenticate', () => {
  test('when the cache holds the principal, then it is the caller and the access service is not asked', async () => {
    const principal = principalOf();
    const { deps, calls } = fakeDeps({ token: principal, requests: 4 });
    expect(await authenticate(deps, request())).toEqual({ principal, rateLimitHeaders: { 'RateLimit-Limit': '10', 'RateLimit-Remaining': '6' } });
    expect(calls.resolves).toBe(0);
  });

  test('when the cache says nobody has the token, then 401 counted against the client, without asking the access service', async () => {
    const { deps, calls } = fakeDeps({ token: 'unknown-token' });
    const error = await refusal(authenticate(deps, request('10.0.0.9')));
    expect([error.status, error.detail]).toEqual([401, 'The token is not valid, revoked, or its owner is deactivated.']);
    expect(calls).toMatchObject({ lookups: 1, resolves: 0, failures: ['10.0.0.9'] });
  });

  test('when the cache cannot say, then the access service decides, with the token hash and request id', async () => {
    const principal = principalOf('admin');
    const { deps } = fakeDeps();
    const asked: string[] = [];
    deps.access = {
      async resolve(hash, requestId) {
        asked.push(hash, requestId);
        return principal;
      },
    };
    const sent = request();
    expect((await authenticate(deps, sent)).principal).toEqual(principal);
    expect(asked).toEqual([hashToken(sent.token), 'rid-1']);
  });

  test('when the access service is unavailable, then 503 with Retry-After 5 and no failure counted', async () => {
    const { deps, calls } = fakeDeps({}, { resolves: new UpstreamUnavailableError('down') });
    const error = await refusal(authenticate(deps, request()));
    expect([error.code, error.detail, error.extra.headers]).toEqual(['service_unavailable', 'Authentication is temporarily unavailable. Retry later.', { 'Retry-After': '5' }]);
    expect(calls.failures).toEqual([]);
  });

  test('when the token is one request past its limit, then 429 with RateLimit-* before Retry-After (the rest of the window)', async () => {
    const { deps } = fakeDeps({ token: principalOf(), requests: 11 });
    const error = await refusal(authenticate(deps, request()));
    expect([error.code, error.detail]).toEqual(['rate_limited', 'At most 10 requests per minute per token.']);
    expect(Object.entries(error.extra.headers ?? {})).toEqual([
      ['RateLimit-Limit', '10'],
      ['RateLimit-Remaining', '0'],
      ['Retry-After', '40'],
    ]);
  });

  test('when the cache holds no entry and the access service resolves the token, then that request is counted against it apart', async () => {
    const { deps, calls } = fakeDeps({ requests: null }, { resolves: principalOf() });
    expect((await authenticate(deps, request())).rateLimitHeaders).toEqual({ 'RateLimit-Limit': '10', 'RateLimit-Remaining': '5' });
    expect(calls.countRequests).toBe(1);
  });

  test('when the cache holds an entry, then the lookup has counted the request and nothing is counted apart', async () => {
    const { deps, calls } = fakeDeps({ token: principalOf(), requests: 2 });
    await authenticate(deps, request());
    expect([calls.counted, calls.countRequests]).toEqual([[true], 0]);
  });
});

describe('authenticate, expiry and use', () => {
  test('when the access service says the token has expired, then 401 saying so, and no failure counted against the client', async () => {
    const { deps, calls } = fakeDeps({}, { resolves: 'expired' });
    const error = await refusal(authenticate(deps, request('10.0.0.5')));
    expect([error.status, error.detail]).toEqual([401, 'The token has expired: make a new one.']);
    expect(calls.failures).toEqual([]);
  });

  test('when a request is let through, then its token\'s use is noted (for last_used_at), and a refused one\'s is not', async () => {
    const principal = principalOf();
    const { deps, calls } = fakeDeps({ token: principal, requests: 1 });
    await authenticate(deps, request());
    expect(calls.used).toEqual([principal.tokenId]);
    const refused = fakeDeps({ token: principalOf(), requests: 11 });
    await refusal(authenticate(refused.deps, request()));
    expect(refused.calls.used).toEqual([]);
  });
});

describe('authenticate, for a client past its failed authentications', () => {
  const tooMany = ['rate_limited', 'Too many failed authentications from this client: at most 3 per minute.', { 'Retry-After': '40' }];

  test('when its token is one the cache holds as valid, then it passes: people behind a shared address are never locked out by a flood', async () => {
    const principal = principalOf();
    const { deps, calls } = fakeDeps({ token: principal, failures: 1_000 });
    expect((await authenticate(deps, request('10.0.0.7'))).principal).toEqual(principal);
    expect(calls.resolves).toBe(0);
  });

  test('when its token is one the cache knows nobody has, then 429 for the rest of the minute, counted, without asking the access service', async () => {
    const { deps, calls } = fakeDeps({ token: 'unknown-token', failures: 3 });
    const error = await refusal(authenticate(deps, request('10.0.0.7')));
    expect([error.code, error.detail, error.extra.headers]).toEqual(tooMany);
    expect(calls).toMatchObject({ resolves: 0, failures: ['10.0.0.7'] });
  });

  test('when the cache cannot say, then the access service decides: a valid token passes, a made-up one is 429', async () => {
    const principal = principalOf();
    const valid = fakeDeps({ failures: 3 }, { resolves: principal });
    expect((await authenticate(valid.deps, request('10.0.0.7'))).principal).toEqual(principal);
    const madeUp = fakeDeps({ failures: 3 }, { resolves: null });
    const error = await refusal(authenticate(madeUp.deps, request('10.0.0.7')));
    expect([error.code, error.detail, error.extra.headers]).toEqual(tooMany);
    expect(madeUp.calls.resolves).toBe(1);
  });

  test('when as many of its tokens are being resolved as the limit allows, then the next is 429 without asking the access service', async () => {
    const { deps, calls } = fakeDeps({ failures: 3 }, { resolves: principalOf() });
    deps.blockedClientResolves.tryTake();
    deps.blockedClientResolves.tryTake();
    const error = await refusal(authenticate(deps, request('10.0.0.7')));
    expect([error.code, error.detail, error.extra.headers]).toEqual(tooMany);
    expect(calls.resolves).toBe(0);
    deps.blockedClientResolves.release();
    await expect(authenticate(deps, request('10.0.0.7'))).resolves.toBeDefined();
  });

  test('when Redis once said so, then this process remembers the block for the window, and another client is not concerned', async () => {
    const { deps } = fakeDeps({ token: 'unknown-token', failures: 3 });
    await refusal(authenticate(deps, request('10.0.0.7')));
    deps.store.lookup = async () => ({ token: 'unknown-token', requests: 1, failures: 0 });
    expect((await refusal(authenticate(deps, request('10.0.0.7')))).code).toBe('rate_limited');
    expect((await refusal(authenticate(deps, request('10.0.0.8')))).code).toBe('unauthorized');
  });

  test('when both limits are 0, then no header, no refusal and no failure counted', async () => {
    const { deps, calls } = fakeDeps({ token: 'unknown-token', requests: 1_000_000, failures: 1_000_000 }, { requestsPerToken: 0, failuresPerClient: 0 });
    expect((await refusal(authenticate(deps, request()))).status).toBe(401);
    expect(calls.failures).toEqual([]);
    deps.store.lookup = async () => ({ token: principalOf(), requests: null, failures: 1_000_000 });
    expect((await authenticate(deps, request())).rateLimitHeaders).toEqual({});
  });
});

describe('reauthenticate, once the body is in', () => {
  test('when the token still resolves, then its principal as it is now (a role changed meanwhile counts), nothing counted', async () => {
    const now = principalOf('admin');
    const { deps, calls } = fakeDeps({}, { resolves: now });
    expect(await reauthenticate(deps, request())).toEqual(now);
    expect([calls.counted, calls.countRequests, calls.failures]).toEqual([[false], 0, []]);
  });

  test('when the token was revoked meanwhile, then 401 and no failure counted', async () => {
    for (const { deps, calls } of [fakeDeps({ token: 'unknown-token' }), fakeDeps({}, { resolves: null })]) {
      const error = await refusal(reauthenticate(deps, request()));
      expect([error.status, error.code]).toEqual([401, 'unauthorized']);
      expect(calls.failures).toEqual([]);
    }
  });
});

describe('authenticate.rules', () => {
  test('failureLimitReached: at the limit, not below; never with no limit', () => {
    expect([failureLimitReached(2, 3), failureLimitReached(3, 3), failureLimitReached(4, 3), failureLimitReached(100, 0)]).toEqual([false, true, true, false]);
  });

  test('tokenRateLimit: the remainder never below 0; an uncounted request announces the limit alone and passes', () => {
    expect(tokenRateLimit(3, 3)).toEqual({ headers: { 'RateLimit-Limit': '3', 'RateLimit-Remaining': '0' }, over: false });
    expect(tokenRateLimit(3, 5)).toEqual({ headers: { 'RateLimit-Limit': '3', 'RateLimit-Remaining': '0' }, over: true });
    expect(tokenRateLimit(3, null)).toEqual({ headers: { 'RateLimit-Limit': '3' }, over: false });
    expect(tokenRateLimit(0, 99)).toEqual({ headers: {}, over: false });
  });
});
