import { Redis } from 'ioredis';
import type { UserAcl } from '@tracker/contracts';
import { createLogger, type InternalClient, type Logger } from '@tracker/kit';
import { devSigningKey, devTrustedKeysText, parseTrustedKeys } from '@tracker/signing';
import { testRedisUrl } from '@tracker/testing';
import { accessClient, aclCacheKey, aclReader, CACHE_FRESH_KEY, createRedis, signCacheEntry } from '../src';

/**
 * The grants reader against real Redis, with the access service stood in by a table:
 * only grant lists the access service signed for the user's own key are used; anything
 * else written into Redis is a miss, and the access service's answer decides.
 */
const trusted = parseTrustedKeys(devTrustedKeysText());
const ACCESS = devSigningKey('access');
let nextId = 1_000_000_000 + Math.floor(Math.random() * 1_000_000_000);

let redis: Redis;
let writer: Redis;
const acls = new Map<number, UserAcl>();
let asked: number[] = [];
const client: InternalClient = {
  call: async <T>(_method: string, path: string) => {
    const userId = Number(/\/internal\/acl\/users\/(\d+)$/.exec(path)![1]);
    asked.push(userId);
    const acl = acls.get(userId);
    return (acl ? { status: 200, body: acl } : { status: 404, body: { code: 'not_found' } }) as { status: number; body: T };
  },
};
const warnings: unknown[] = [];
const log = Object.assign(createLogger('test', 'silent'), { warn: (fields: unknown) => warnings.push(fields) }) as unknown as Logger;

beforeAll(async () => {
  redis = createRedis(testRedisUrl(), createLogger('test', 'silent'));
  writer = new Redis(testRedisUrl());
  await new Promise<void>((resolve) => (redis.status === 'ready' ? resolve() : redis.once('ready', () => resolve())));
});
afterAll(async () => {
  await writer.del(CACHE_FRESH_KEY);
  await redis.quit();
  await writer.quit();
});
beforeEach(async () => {
  asked = [];
  await writer.set(CACHE_FRESH_KEY, '1', 'PX', 60_000);
});

function world() {
  const workspaceId = nextId++;
  const queueId = nextId++;
  const userId = nextId++;
  acls.set(userId, { user_id: userId, workspace_id: workspaceId, grants: [] }); // the truth: no grant
  const forged: UserAcl = { user_id: userId, workspace_id: workspaceId, grants: [{ queue_id: queueId, role: 'admin' }] };
  return { workspaceId, queueId, userId, forged, key: aclCacheKey(userId) };
}

const grantsOf = (reader: ReturnType<typeof aclReader>, w: ReturnType<typeof world>) => reader.explicitGrants(w.userId, w.workspaceId, null).then((m) => Object.fromEntries(m));

describe('forged grant lists in Redis grant nothing', () => {
  test.each([
    ['a plain JSON grant list', (w: ReturnType<typeof world>) => JSON.stringify(w.forged)],
    ['a grant list signed by the issues service', (w: ReturnType<typeof world>) => signCacheEntry(devSigningKey('issues'), w.key, w.forged, 60)],
    ['a grant list signed by the statistics service', (w: ReturnType<typeof world>) => signCacheEntry(devSigningKey('statistics'), w.key, w.forged, 60)],
    ['a genuine entry of another user copied under this key', (w: ReturnType<typeof world>) => {
      const other = nextId++;
      return signCacheEntry(ACCESS, aclCacheKey(other), { ...w.forged, user_id: other }, 60);
    }],
    ['a genuine entry that names another user under this key', (w: ReturnType<typeof world>) => signCacheEntry(ACCESS, w.key, { ...w.forged, user_id: w.userId + 1 }, 60)],
    ['an expired genuine entry', (w: ReturnType<typeof world>) => signCacheEntry(ACCESS, w.key, w.forged, 60, Date.now() - 61_000)],
    ['a signed entry that is not a grant list', (w: ReturnType<typeof world>) => signCacheEntry(ACCESS, w.key, { user_id: w.userId }, 60)],
  ])('when Redis holds %s, then the access service decides (no grant)', async (_name, entry) => {
    const w = world();
    await writer.set(w.key, entry(w), 'EX', 60);
    const reader = aclReader(redis, accessClient(client), log, trusted);
    const before = warnings.length;
    expect(await grantsOf(reader, w)).toEqual({});
    expect(asked).toEqual([w.userId]);
    expect(warnings.length).toBe(before + 1);
    await writer.del(w.key);
  });
});

describe('genuine grant lists serve from the cache', () => {
  test('when the access service signed the list for this user, then it decides without asking, and a delete holds on the next request', async () => {
    const w = world();
    const granted: UserAcl = { ...w.forged, grants: [{ queue_id: w.queueId, role: 'read-write' }] };
    await writer.set(w.key, signCacheEntry(ACCESS, w.key, granted, 60), 'EX', 60);
    const reader = aclReader(redis, accessClient(client), log, trusted);
    for (let i = 0; i < 20; i++) expect(await grantsOf(reader, w)).toEqual({ [w.queueId]: 'read-write' });
    expect(asked).toEqual([]);
    // Revoked: deleted from Redis, and the very next request asks the access service.
    await writer.del(w.key);
    expect(await grantsOf(reader, w)).toEqual({});
    expect(asked).toEqual([w.userId]);
  });

  test('when the freshness key is absent, then a genuine entry is not used', async () => {
    const w = world();
    await writer.set(w.key, signCacheEntry(ACCESS, w.key, w.forged, 60), 'EX', 60);
    await writer.del(CACHE_FRESH_KEY);
    const reader = aclReader(redis, accessClient(client), log, trusted);
    expect(await grantsOf(reader, w)).toEqual({});
    expect(asked).toEqual([w.userId]);
    await writer.del(w.key);
  });
});
