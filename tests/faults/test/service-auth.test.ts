import { seedWorkspace, startSystem, type System } from '@tracker/system-tests-support';
import { loggedRequests, queueWithIssues, send, sleep, tally, type Outcome } from './service-support';

/**
 * Authentication and authorization under faults: Redis (the cache of tokens and
 * grants) stopped, and a token revoked while it is in heavy use through two gateways.
 */
let system: System;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;
/** Extra tokens of the member (made up front: each operator command takes seconds). */
let spare: { token_id: number; token: string };
let victim: { token_id: number; token: string };
beforeAll(async () => {
  system = await startSystem();
  ws = await seedWorkspace(system);
  [spare, victim] = await Promise.all([
    system.admin('token', 'create', '--user', String(ws.member.id)),
    system.admin('token', 'create', '--user', String(ws.member.id)),
  ]);
}, 120_000);
afterAll(() => system?.stop());

const RESOLVE = '/internal/auth/resolve';
const ACL = /"path":"\/internal\/acl\/users\/\d+"/g;
/** Lookups the access service answered: each is a request a cache did not serve. */
const accessLookups = () => loggedRequests(system.services.access, RESOLVE) + loggedRequests(system.services.access, ACL);

test('with Redis stopped, a valid token works, a revoked token and a withdrawn grant are refused, a hidden queue stays 404; the caches serve again once Redis is back', async () => {
  const admin = ws.admin.token;
  const open = await queueWithIssues(system, admin, 'OPEN', ['readable']);
  const secret = await queueWithIssues(system, admin, 'SECRET', ['hidden']);
  const grant = await system.api('PUT', `/api/v1/queues/${open.queue.id}/permissions/${ws.member.id}`, { token: admin, body: { role: 'read-only' } });
  expect(grant.status).toBe(200);
  const member = ws.member.token;
  const [readable, hidden] = [open.issues[0]!.key, secret.issues[0]!.key];

  // Warm: every decision below is in the Redis caches before the outage.
  expect((await system.api('GET', '/api/v1/me', { token: spare.token })).status).toBe(200);
  expect((await system.api('GET', `/api/v1/issues/${readable}`, { token: member })).status).toBe(200);
  expect((await system.api('GET', `/api/v1/issues/${hidden}`, { token: member })).status).toBe(404);

  await Promise.all([system.redisRelay.cut(), system.accessRedisRelay.cut()]);
  try {
    const before = accessLookups();
    const during: Array<[string, number, number]> = [];
    for (let i = 0; i < 3; i++) {
      for (const [label, token, path] of [
        ['me', member, '/api/v1/me'],
        ['readable', member, `/api/v1/issues/${readable}`],
        ['hidden', member, `/api/v1/issues/${hidden}`],
        ['nonexistent', member, '/api/v1/issues/SECRET-999'],
        ['admin hidden', admin, `/api/v1/issues/${hidden}`],
      ] as const) {
        const res = await system.api('GET', path, { token });
        during.push([label, res.status, res.ms]);
      }
    }
    expect(during.filter(([label]) => label === 'me' || label === 'readable' || label === 'admin hidden').map(([, s]) => s)).toEqual(Array(9).fill(200));
    expect(during.filter(([label]) => label === 'hidden' || label === 'nonexistent').map(([, s]) => s)).toEqual(Array(6).fill(404));
    // Slower is fine, hanging is not.
    expect(Math.max(...during.map(([, , ms]) => ms))).toBeLessThan(3000);
    // The decisions really came from the access service, not from the caches.
    expect(accessLookups() - before).toBeGreaterThanOrEqual(12);

    // Changes during the outage hold for the very next request.
    const revoked = await system.admin('token', 'revoke', '--token-id', String(spare.token_id));
    expect(revoked).toEqual({ token_id: spare.token_id, revoked: true });
    const withdrawn = await system.api('DELETE', `/api/v1/queues/${open.queue.id}/permissions/${ws.member.id}`, { token: admin });
    expect(withdrawn.status).toBe(200);
    const afterChange = await system.api('GET', '/api/v1/me', { token: spare.token });
    expect(afterChange.status).toBe(401);
    expect(afterChange.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await system.api('GET', `/api/v1/issues/${readable}`, { token: member })).status).toBe(404);
    expect((await system.api('GET', '/api/v1/me', { token: member })).status).toBe(200);
  } finally {
    await Promise.all([system.redisRelay.restore(), system.accessRedisRelay.restore()]);
  }

  // Redis is back holding the entries cached before the outage: they must never be served.
  // Once the access service has deleted them, the caches answer again (no lookups at access).
  const deadline = Date.now() + 10_000;
  let cachedAgain = false;
  while (Date.now() < deadline) {
    const before = accessLookups();
    expect((await system.api('GET', '/api/v1/me', { token: spare.token })).status).toBe(401);
    expect((await system.api('GET', `/api/v1/issues/${readable}`, { token: member })).status).toBe(404);
    expect((await system.api('GET', `/api/v1/issues/${hidden}`, { token: member })).status).toBe(404);
    expect((await system.api('GET', '/api/v1/me', { token: member })).status).toBe(200);
    expect((await system.api('GET', `/api/v1/issues/${hidden}`, { token: admin })).status).toBe(200);
    // The revoked token is never cached (it resolves to nothing); everything else is.
    const lookups = accessLookups() - before;
    if (lookups <= 1) {
      cachedAgain = true;
      break;
    }
    await sleep(250);
  }
  expect(cachedAgain).toBe(true);
}, 60_000);

test('a token revoked while about 200 requests/s use it through two gateways: no request started after the revoke answered succeeds', async () => {
  const inFlight = new Set<Promise<Outcome>>();
  const outcomes: Outcome[] = [];
  const gateways = await Promise.all([system.startGateway({ RATE_LIMIT_PER_MINUTE: '0' }), system.startGateway({ RATE_LIMIT_PER_MINUTE: '0' })]);
  const { queue, issues } = await queueWithIssues(system, ws.admin.token, 'HOT', ['hot']);
  const grant = await system.api('PUT', `/api/v1/queues/${queue.id}/permissions/${ws.member.id}`, { token: ws.admin.token, body: { role: 'read-only' } });
  expect(grant.status).toBe(200);
  const paths = ['/api/v1/me', `/api/v1/issues/${issues[0]!.key}`];

  for (const gateway of gateways) {
    for (const path of paths) expect((await send(gateway.url, 'GET', path, { token: victim.token })).status).toBe(200);
  }
  // Open loop: one request every 5 ms, alternating gateways and services, whatever the answers.
  let n = 0;
  let skipped = 0;
  const ticker = setInterval(() => {
    if (inFlight.size >= 64) {
      skipped++;
      return;
    }
    const gateway = gateways[n % 2]!;
    const path = paths[Math.floor(n / 2) % 2]!;
    n++;
    const p = send(gateway.url, 'GET', path, { token: victim.token, label: `${gateway.port}${path}` });
    inFlight.add(p);
    void p.then((o) => {
      outcomes.push(o);
      inFlight.delete(p);
    });
  }, 5);
  // Load-adaptive phases (the machine may be busy): revoke once 50 requests have
  // succeeded, stop once 100 requests started after the revoke have been answered.
  const waitFor = async (enough: () => boolean, maxMs: number) => {
    const deadline = Date.now() + maxMs;
    while (!enough() && Date.now() < deadline) await sleep(20);
  };
  let revokeStarted = 0;
  let revokeAnswered = Infinity;
  try {
    await waitFor(() => outcomes.filter((o) => o.status === 200).length >= 50, 8000);
    revokeStarted = Date.now();
    expect(await system.admin('token', 'revoke', '--token-id', String(victim.token_id))).toEqual({ token_id: victim.token_id, revoked: true });
    revokeAnswered = Date.now();
    await waitFor(() => outcomes.filter((o) => o.started >= revokeAnswered).length >= 100, 8000);
  } finally {
    clearInterval(ticker);
    await Promise.all([...inFlight]);
  }

  // Counted before the revoke was sent, so ended at or before that millisecond.
  const before = outcomes.filter((o) => o.ended <= revokeStarted);
  const after = outcomes.filter((o) => o.started >= revokeAnswered);
  const rate = outcomes.length / ((Math.max(...outcomes.map((o) => o.started)) - Math.min(...outcomes.map((o) => o.started))) / 1000);
  const context = { total: outcomes.length, rate: Math.round(rate), skipped, all: tally(outcomes), before: tally(before), after: tally(after) };
  // Nothing but success or refusal: no 5xx, no rate limiting, nothing hung.
  expect({ context, unexpected: outcomes.filter((o) => o.status !== 200 && o.status !== 401) }).toMatchObject({ unexpected: [] });
  expect({ context, enoughBefore: before.length >= 50 }).toMatchObject({ enoughBefore: true });
  expect({ context, refusedBefore: before.filter((o) => o.status !== 200) }).toMatchObject({ refusedBefore: [] });
  expect({ context, enoughAfter: after.length >= 100 }).toMatchObject({ enoughAfter: true });
  expect({ context, succeededAfterRevoke: after.filter((o) => o.status !== 401) }).toMatchObject({ succeededAfterRevoke: [] });
  // Both gateways and both upstream services were exercised after the revoke.
  expect(new Set(after.map((o) => o.label)).size).toBe(4);
}, 60_000);
