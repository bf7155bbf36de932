import { devSigningKey } from '@tracker/signing';
import { aclCacheKey, CACHE_FRESH_KEY, signCacheEntry } from '@tracker/authz';
import { Redis } from 'ioredis';
import { testRedisUrl } from '@tracker/testing';
import { useIssuesService, type Member, type Workspace } from './harness';

/**
 * One authorization mechanism behind every endpoint: the effective queue role from
 * the workspace role and the explicit grant (Redis, else the access service).
 */
const h = useIssuesService();
let redis: Redis;
/** A grant list as the access service caches it: signed with its key for this Redis key (libs/authz cache-protocol.ts). */
const signedAcl = (key: string, acl: unknown) => signCacheEntry(devSigningKey('access'), key, acl, 60);
beforeAll(() => {
  redis = new Redis(testRedisUrl());
});
afterAll(() => redis.disconnect());

type Who = 'no role' | 'read-only' | 'read-write' | 'admin' | 'workspace admin';
const WHO: Who[] = ['no role', 'read-only', 'read-write', 'admin', 'workspace admin'];

interface World {
  ws: Workspace;
  queue: any;
  issue: any;
  caller: Member;
}

async function world(who: Who): Promise<World> {
  const ws = await h.workspace();
  const queue = await h.queue(ws);
  const issue = await h.issue(ws.admin, queue.id);
  const caller = who === 'workspace admin' ? h.member(ws.id, { role: 'admin' }) : h.member(ws.id);
  if (who !== 'no role' && who !== 'workspace admin') h.grant(caller, queue.id, who);
  return { ws, queue, issue, caller };
}

/** Every endpoint, as a request the caller makes against the world, and what each role gets. */
const matrix: Array<[string, (w: World) => Promise<number>, Record<Who, number>]> = [
  ['GET /queues lists the queue', async (w) => ((await h.call('GET', '/api/v1/queues', { as: w.caller })).body.some((q: any) => q.id === w.queue.id) ? 200 : 404),
    { 'no role': 404, 'read-only': 200, 'read-write': 200, admin: 200, 'workspace admin': 200 }],
  ['POST /queues', async (w) => (await h.call('POST', '/api/v1/queues', { as: w.caller, body: { key: 'NEWQ', name: 'x' } })).status,
    { 'no role': 403, 'read-only': 403, 'read-write': 403, admin: 403, 'workspace admin': 201 }],
  ['PATCH /queues/{id}', async (w) => (await h.call('PATCH', `/api/v1/queues/${w.queue.id}`, { as: w.caller, body: { name: 'x' } })).status,
    { 'no role': 404, 'read-only': 403, 'read-write': 403, admin: 200, 'workspace admin': 200 }],
  ['GET /statuses lists its statuses', async (w) => ((await h.call('GET', '/api/v1/statuses', { as: w.caller })).body.some((s: any) => s.queue_id === w.queue.id) ? 200 : 404),
    { 'no role': 404, 'read-only': 200, 'read-write': 200, admin: 200, 'workspace admin': 200 }],
  ['POST /issues', async (w) => (await h.call('POST', '/api/v1/issues', { as: w.caller, body: { queue_id: w.queue.id, title: 'x' } })).status,
    { 'no role': 403, 'read-only': 403, 'read-write': 201, admin: 201, 'workspace admin': 201 }],
  ['GET /issues/{key}', async (w) => (await h.call('GET', `/api/v1/issues/${w.issue.key}`, { as: w.caller })).status,
    { 'no role': 404, 'read-only': 200, 'read-write': 200, admin: 200, 'workspace admin': 200 }],
  ['PATCH /issues/{key}', async (w) => (await h.call('PATCH', `/api/v1/issues/${w.issue.key}`, { as: w.caller, body: { title: 'y' } })).status,
    { 'no role': 404, 'read-only': 403, 'read-write': 200, admin: 200, 'workspace admin': 200 }],
  ['POST /issues/{key}/comments', async (w) => (await h.call('POST', `/api/v1/issues/${w.issue.key}/comments`, { as: w.caller, body: { body: 'c' } })).status,
    { 'no role': 404, 'read-only': 403, 'read-write': 201, admin: 201, 'workspace admin': 201 }],
  ['POST /issues/{key}/worklogs', async (w) => (await h.call('POST', `/api/v1/issues/${w.issue.key}/worklogs`, { as: w.caller, body: { minutes: 5 } })).status,
    { 'no role': 404, 'read-only': 403, 'read-write': 201, admin: 201, 'workspace admin': 201 }],
  ['POST /issues/search naming the queue', async (w) => (await h.call('POST', '/api/v1/issues/search', { as: w.caller, body: { queue_ids: [w.queue.id] } })).status,
    { 'no role': 403, 'read-only': 200, 'read-write': 200, admin: 200, 'workspace admin': 200 }],
  ['POST /issues/search finds the issue', async (w) => ((await h.call('POST', '/api/v1/issues/search', { as: w.caller, body: {} })).body.some((i: any) => i.id === w.issue.id) ? 200 : 404),
    { 'no role': 404, 'read-only': 200, 'read-write': 200, admin: 200, 'workspace admin': 200 }],
];

describe('role matrix', () => {
  test.each(matrix.flatMap(([name, run, expected]) => WHO.map((who) => [name, who, expected[who], run] as const)))(
    'when %s is asked by a caller with %s, then %i',
    async (_name, who, status, run) => {
      expect(await run(await world(who))).toBe(status);
    },
  );
});

describe('cross-workspace isolation', () => {
  test("when a workspace admin of B addresses A's queue and issue, then 404 (403 where a queue is named in a body) and A is unchanged", async () => {
    const a = await world('read-write');
    const b = await h.workspace();
    const as = b.admin;
    expect((await h.call('GET', `/api/v1/issues/${a.issue.key}`, { as })).status).toBe(404);
    expect((await h.call('PATCH', `/api/v1/issues/${a.issue.key}`, { as, body: { title: 'hijack' } })).status).toBe(404);
    expect((await h.call('POST', `/api/v1/issues/${a.issue.key}/comments`, { as, body: { body: 'x' } })).status).toBe(404);
    expect((await h.call('POST', `/api/v1/issues/${a.issue.key}/worklogs`, { as, body: { minutes: 1 } })).status).toBe(404);
    expect((await h.call('PATCH', `/api/v1/queues/${a.queue.id}`, { as, body: { name: 'hijack' } })).status).toBe(404);
    expect((await h.call('POST', '/api/v1/issues', { as, body: { queue_id: a.queue.id, title: 'x' } })).status).toBe(403);
    expect((await h.call('POST', '/api/v1/issues/search', { as, body: { queue_ids: [a.queue.id] } })).status).toBe(403);
    expect((await h.call('GET', '/api/v1/queues', { as })).body).toEqual([]);
    expect((await h.call('GET', '/api/v1/statuses', { as })).body).toEqual([]);
    expect((await h.call('POST', '/api/v1/issues/search', { as, body: { search: a.issue.key } })).body).toEqual([]);
    const issue = (await h.call('GET', `/api/v1/issues/${a.issue.key}`, { as: a.ws.admin })).body;
    expect(issue).toMatchObject({ title: a.issue.title, version: 1, comments: [], worklogs: [] });
  });

  test('when both workspaces use the same queue key, then each key resolves to its own workspace', async () => {
    const a = await h.workspace();
    const b = await h.workspace();
    const qa = await h.queue(a, { key: 'SAME' });
    const qb = await h.queue(b, { key: 'SAME' });
    const ia = await h.issue(a.admin, qa.id, { title: 'in A' });
    const ib = await h.issue(b.admin, qb.id, { title: 'in B' });
    expect(ia.key).toBe(ib.key);
    expect((await h.call('GET', `/api/v1/issues/${ia.key}`, { as: a.admin })).body.title).toBe('in A');
    expect((await h.call('GET', `/api/v1/issues/${ib.key}`, { as: b.admin })).body.title).toBe('in B');
  });
});

describe('grants come from the Redis ACL cache, else the access service', () => {
  const aclCalls = (userId: number) => h.access.calls.filter((c) => c.path === `/internal/acl/users/${userId}`).length;
  // The access service keeps this key alive while the cache is trustworthy.
  beforeEach(() => redis.set(CACHE_FRESH_KEY, '1', 'PX', 60_000));
  afterAll(() => redis.del(CACHE_FRESH_KEY));

  test('when the freshness key is absent, then a cached entry is not trusted and the access service decides', async () => {
    const w = await world('no role');
    const key = aclCacheKey(w.caller.id);
    try {
      await redis.set(key, signedAcl(key, { user_id: w.caller.id, workspace_id: w.ws.id, grants: [{ queue_id: w.queue.id, role: 'admin' }] }));
      await redis.del(CACHE_FRESH_KEY);
      const calls = aclCalls(w.caller.id);
      expect((await h.call('GET', `/api/v1/issues/${w.issue.key}`, { as: w.caller })).status).toBe(404);
      expect(aclCalls(w.caller.id)).toBe(calls + 1);
    } finally {
      await redis.del(key);
    }
  });

  test('when the cache holds the grants, then the access service is not asked, and a changed or deleted key holds on the very next request', async () => {
    const w = await world('no role');
    const key = aclCacheKey(w.caller.id);
    const acl = (role: string) => signedAcl(key, { user_id: w.caller.id, workspace_id: w.ws.id, grants: [{ queue_id: w.queue.id, role }] });
    try {
      // The cache says read-write although the access service knows no grant: the cache is used.
      await redis.set(key, acl('read-write'));
      const calls = aclCalls(w.caller.id);
      expect((await h.call('PATCH', `/api/v1/issues/${w.issue.key}`, { as: w.caller, body: { title: 'via cache' } })).status).toBe(200);
      expect(aclCalls(w.caller.id)).toBe(calls);

      await redis.set(key, acl('read-only'));
      expect((await h.call('PATCH', `/api/v1/issues/${w.issue.key}`, { as: w.caller, body: { title: 'again' } })).status).toBe(403);
      expect((await h.call('GET', `/api/v1/issues/${w.issue.key}`, { as: w.caller })).status).toBe(200);

      // Deleted: the access service answers (no grant), so the issue is hidden at once.
      await redis.del(key);
      expect((await h.call('GET', `/api/v1/issues/${w.issue.key}`, { as: w.caller })).status).toBe(404);
      expect(aclCalls(w.caller.id)).toBe(calls + 1);
    } finally {
      await redis.del(key);
    }
  });

  test('when the access service grants and then revokes, then each applies to the very next request', async () => {
    const w = await world('no role');
    expect((await h.call('GET', `/api/v1/issues/${w.issue.key}`, { as: w.caller })).status).toBe(404);
    h.grant(w.caller, w.queue.id, 'read-only');
    expect((await h.call('GET', `/api/v1/issues/${w.issue.key}`, { as: w.caller })).status).toBe(200);
    h.grant(w.caller, w.queue.id, 'read-write');
    expect((await h.call('POST', `/api/v1/issues/${w.issue.key}/comments`, { as: w.caller, body: { body: 'x' } })).status).toBe(201);
    h.grant(w.caller, w.queue.id, null);
    expect((await h.call('GET', `/api/v1/issues/${w.issue.key}`, { as: w.caller })).status).toBe(404);
  });

  test('when the cache entry is malformed or belongs to another workspace, then it is not trusted', async () => {
    const w = await world('read-only');
    const key = aclCacheKey(w.caller.id);
    try {
      await redis.set(key, '{not json');
      expect((await h.call('GET', `/api/v1/issues/${w.issue.key}`, { as: w.caller })).status).toBe(200);
      await redis.set(key, signedAcl(key, { user_id: w.caller.id, workspace_id: w.ws.id + 1, grants: [{ queue_id: w.queue.id, role: 'admin' }] }));
      expect((await h.call('PATCH', `/api/v1/queues/${w.queue.id}`, { as: w.caller, body: { name: 'x' } })).status).toBe(404);
    } finally {
      await redis.del(key);
    }
  });

  test('when a queue created a moment ago is granted, then the grantee can use it on the next request', async () => {
    const ws = await h.workspace();
    const member = h.member(ws.id);
    const queue = await h.queue(ws);
    expect(h.access.registeredQueues.get(queue.id)).toEqual({ workspaceId: ws.id, key: queue.key });
    h.grant(member, queue.id, 'read-write');
    expect((await h.call('POST', '/api/v1/issues', { as: member, body: { queue_id: queue.id, title: 'first' } })).status).toBe(201);
  });

  test('when the access service is down and Redis has no entry, then 503; a workspace admin is not affected', async () => {
    const w = await world('read-write');
    h.access.setDown(true);
    try {
      const res = await h.call('GET', `/api/v1/issues/${w.issue.key}`, { as: w.caller });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ code: 'service_unavailable', status: 503 });
      expect(res.headers.get('retry-after')).toBe('5');
      expect((await h.call('GET', `/api/v1/issues/${w.issue.key}`, { as: w.ws.admin })).status).toBe(200);
    } finally {
      h.access.setDown(false);
    }
  });

  test('when the access service is down but Redis holds the entry, then requests are still served', async () => {
    const w = await world('no role');
    const key = aclCacheKey(w.caller.id);
    await redis.set(key, signedAcl(key, { user_id: w.caller.id, workspace_id: w.ws.id, grants: [{ queue_id: w.queue.id, role: 'read-only' }] }));
    h.access.setDown(true);
    try {
      expect((await h.call('GET', `/api/v1/issues/${w.issue.key}`, { as: w.caller })).status).toBe(200);
    } finally {
      h.access.setDown(false);
      await redis.del(key);
    }
  });
});

describe('with Redis unreachable', () => {
  const down = useIssuesService({ REDIS_URL: 'redis://127.0.0.1:1' });

  test('when Redis cannot be reached, then grants come from the access service and revokes still apply at once', async () => {
    const ws = await down.workspace();
    const queue = await down.queue(ws);
    const issue = await down.issue(ws.admin, queue.id);
    const member = down.member(ws.id);
    expect((await down.call('GET', `/api/v1/issues/${issue.key}`, { as: member })).status).toBe(404);
    down.grant(member, queue.id, 'read-write');
    const started = Date.now();
    expect((await down.call('PATCH', `/api/v1/issues/${issue.key}`, { as: member, body: { title: 'no redis' } })).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1000);
    down.grant(member, queue.id, null);
    expect((await down.call('GET', `/api/v1/issues/${issue.key}`, { as: member })).status).toBe(404);
  });
});
