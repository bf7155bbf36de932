import { Redis } from 'ioredis';
import { devSigningKey, type Signer } from '@tracker/signing';
import { aclCacheKey, CACHE_FRESH_KEY, signCacheEntry } from '@tracker/authz';
import { testRedisUrl, createRedisAclUser, type RedisAclUser } from '@tracker/testing';
import { startIssues, useIssuesService, type Member, type Workspace } from './harness';

/**
 * Whoever can write Redis must not be able to grant themselves a queue: the issues
 * service believes a cached grant list only if the access service signed it for that
 * user's key and it has not expired. Anything else is a cache miss: the access service
 * (here a fake that knows no grant) decides, so the caller sees what a real miss gives
 * (404 for an issue or queue they cannot see, 403 where they name the queue).
 */
const h = useIssuesService();
let redis: Redis;
beforeAll(() => {
  redis = new Redis(testRedisUrl());
});
afterAll(async () => {
  await redis.del(CACHE_FRESH_KEY);
  redis.disconnect();
});
// The access service keeps this key alive while the cache may be trusted.
beforeEach(() => redis.set(CACHE_FRESH_KEY, '1', 'PX', 60_000));

interface World {
  ws: Workspace;
  queue: any;
  issue: any;
  caller: Member;
  key: string;
  /** The grant list an attacker wants: admin of the queue. */
  admin: { user_id: number; workspace_id: number; grants: Array<{ queue_id: number; role: string }> };
}

async function world(): Promise<World> {
  const ws = await h.workspace();
  const queue = await h.queue(ws);
  const issue = await h.issue(ws.admin, queue.id);
  const caller = h.member(ws.id); // the access service knows no grant of theirs
  return { ws, queue, issue, caller, key: aclCacheKey(caller.id), admin: { user_id: caller.id, workspace_id: ws.id, grants: [{ queue_id: queue.id, role: 'admin' }] } };
}

const aclCalls = (userId: number) => h.access.calls.filter((c) => c.path === `/internal/acl/users/${userId}`).length;
const signedBy = (signer: Signer, key: string, acl: unknown, ttlSeconds = 60, now = Date.now()) => signCacheEntry(devSigningKey(signer), key, acl, ttlSeconds, now);

/** What the caller can do with the queue and issue: each status as a real cache miss gives it. */
async function attempt(w: World) {
  return {
    read: (await h.call('GET', `/api/v1/issues/${w.issue.key}`, { as: w.caller })).status,
    edit: (await h.call('PATCH', `/api/v1/issues/${w.issue.key}`, { as: w.caller, body: { title: 'hijacked' } })).status,
    rename: (await h.call('PATCH', `/api/v1/queues/${w.queue.id}`, { as: w.caller, body: { name: 'hijacked' } })).status,
    create: (await h.call('POST', '/api/v1/issues', { as: w.caller, body: { queue_id: w.queue.id, title: 'planted' } })).status,
    listed: (await h.call('GET', '/api/v1/queues', { as: w.caller })).body.some((q: any) => q.id === w.queue.id),
  };
}
const NOTHING = { read: 404, edit: 404, rename: 404, create: 403, listed: false };

describe('forged grant lists in Redis grant nothing', () => {
  test.each<[string, (w: World) => string]>([
    ['a plain JSON grant list', (w) => JSON.stringify(w.admin)],
    ['a grant list signed with the issues key', (w) => signedBy('issues', w.key, w.admin)],
    ['a grant list signed with the gateway key', (w) => signedBy('gateway', w.key, w.admin)],
    ['a grant list signed with the statistics key', (w) => signedBy('statistics', w.key, w.admin)],
    ["another user's genuine entry copied under this user's key", (w) => {
      const otherKey = aclCacheKey(w.caller.id + 1);
      return signedBy('access', otherKey, { ...w.admin, user_id: w.caller.id + 1 });
    }],
    ['a genuine entry past its signed expiry', (w) => signedBy('access', w.key, w.admin, 60, Date.now() - 61_000)],
  ])('when Redis holds %s, then the caller gets what a real miss gives and the access service decides', async (_name, entry) => {
    const w = await world();
    try {
      await redis.set(w.key, entry(w), 'EX', 60);
      const calls = aclCalls(w.caller.id);
      expect(await attempt(w)).toEqual(NOTHING);
      expect(aclCalls(w.caller.id)).toBeGreaterThan(calls);
      // The issue and queue are untouched.
      const issue = (await h.call('GET', `/api/v1/issues/${w.issue.key}`, { as: w.ws.admin })).body;
      expect(issue).toMatchObject({ title: w.issue.title, version: 1 });
    } finally {
      await redis.del(w.key);
    }
  });
});

describe('genuine grant lists still serve from the cache', () => {
  test('when the access service signed the list for this user, then it decides without asking, even with the access service down', async () => {
    const w = await world();
    try {
      await redis.set(w.key, signedBy('access', w.key, w.admin), 'EX', 60);
      const calls = aclCalls(w.caller.id);
      h.access.setDown(true);
      try {
        expect((await h.call('GET', `/api/v1/issues/${w.issue.key}`, { as: w.caller })).status).toBe(200);
        expect((await h.call('PATCH', `/api/v1/queues/${w.queue.id}`, { as: w.caller, body: { name: 'renamed via cache' } })).status).toBe(200);
      } finally {
        h.access.setDown(false);
      }
      expect(aclCalls(w.caller.id)).toBe(calls);
    } finally {
      await redis.del(w.key);
    }
  });
});

describe('with an ACL user and password in REDIS_URL', () => {
  let acl: RedisAclUser;
  beforeAll(async () => {
    acl = await createRedisAclUser();
  });
  afterAll(() => acl.remove());

  test('when the password is right, then the issues service reads the signed grants as that user', async () => {
    const authed = await startIssues({ REDIS_URL: acl.urlWith() });
    try {
      await new Promise<void>((resolve) => (authed.service.redis.status === 'ready' ? resolve() : authed.service.redis.once('ready', () => resolve())));
      expect(await authed.service.redis.call('ACL', 'WHOAMI')).toBe(acl.user);
      const ws = await authed.workspace();
      const queue = await authed.queue(ws);
      const issue = await authed.issue(ws.admin, queue.id);
      const member = authed.member(ws.id);
      const key = aclCacheKey(member.id);
      await redis.set(key, signedBy('access', key, { user_id: member.id, workspace_id: ws.id, grants: [{ queue_id: queue.id, role: 'read-only' }] }), 'EX', 60);
      expect((await authed.call('GET', `/api/v1/issues/${issue.key}`, { as: member })).status).toBe(200);
      expect(authed.access.calls.filter((c) => c.path === `/internal/acl/users/${member.id}`)).toEqual([]);
      await redis.del(key);
    } finally {
      await authed.close();
    }
  });

  test('when the password is wrong, then the issues service starts and takes grants from the access service', async () => {
    const wrong = await startIssues({ REDIS_URL: acl.urlWith('wrong-password') });
    try {
      await new Promise((r) => setTimeout(r, 300));
      expect(wrong.service.redis.status).not.toBe('ready');
      const ws = await wrong.workspace();
      const queue = await wrong.queue(ws);
      const issue = await wrong.issue(ws.admin, queue.id);
      const member = wrong.member(ws.id);
      expect((await wrong.call('GET', `/api/v1/issues/${issue.key}`, { as: member })).status).toBe(404);
      wrong.grant(member, queue.id, 'read-only');
      expect((await wrong.call('GET', `/api/v1/issues/${issue.key}`, { as: member })).status).toBe(200);
    } finally {
      for (let i = 0; i < 100 && wrong.service.redis.status !== 'reconnecting'; i++) await new Promise((r) => setTimeout(r, 10));
      await wrong.close();
    }
  });
});
