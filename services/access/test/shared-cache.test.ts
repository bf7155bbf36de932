import { Redis } from 'ioredis';
import { createLogger } from '@tracker/kit';
import { devSigningKey } from '@tracker/signing';
import { CACHE_FRESH_KEY, CACHE_FRESH_TTL_MS } from '@tracker/authz';
import { hostPort, redisUrlVia, startTcpProxy, testRedisUrl, type TcpProxy } from '@tracker/testing';
import { sharedCache } from '../src/data-access/shared-cache';
import { startAccess, type AccessHarness } from './harness';

/**
 * The freshness protocol, exercised through a relay we can cut (this worker's own
 * Redis database, so other test files cannot renew the freshness key meanwhile).
 */
let access: AccessHarness;
let relay: TcpProxy;
let redis: Redis;

beforeAll(async () => {
  access = await startAccess();
  relay = await startTcpProxy(...hostPort(testRedisUrl()));
});
afterAll(async () => {
  redis?.disconnect();
  await relay.close();
  await access.close();
});
beforeEach(async () => {
  await access.schema.query(`DELETE FROM "${access.schema.schema}".auth_cache_debts`);
  await access.redis.del(CACHE_FRESH_KEY);
});

async function connectedCache() {
  redis?.disconnect();
  redis = new Redis(redisUrlVia(relay.port), { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 300, retryStrategy: () => 100 });
  redis.on('error', () => {});
  await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
  return sharedCache(redis, access.service.pool, 60, createLogger('test', 'silent'), devSigningKey('access'));
}

describe('cache freshness', () => {
  test('when there are no debts, then keepFresh sets the freshness key with a short expiry', async () => {
    const cache = await connectedCache();
    await cache.keepFresh();
    const ttl = await access.redis.pttl(CACHE_FRESH_KEY);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(CACHE_FRESH_TTL_MS);
  });

  test('when a debt is recorded and Redis answers, then keepFresh deletes the stale key first, then renews freshness', async () => {
    const cache = await connectedCache();
    await access.redis.set('auth:tok:stale-one', '{}');
    await access.schema.query(`INSERT INTO "${access.schema.schema}".auth_cache_debts (key) VALUES ('auth:tok:stale-one')`);
    await cache.keepFresh();
    expect(await access.redis.exists('auth:tok:stale-one')).toBe(0);
    expect(await access.redis.exists(CACHE_FRESH_KEY)).toBe(1);
  });

  test('when Redis is unreachable during a change, then the answer waits until readers can no longer trust the cache', async () => {
    const cache = await connectedCache();
    await cache.keepFresh();
    await access.redis.set('auth:tok:stale-two', '{}');
    await access.schema.query(`INSERT INTO "${access.schema.schema}".auth_cache_debts (key) VALUES ('auth:tok:stale-two')`);
    await relay.cut();
    try {
      const started = Date.now();
      await cache.invalidate(['auth:tok:stale-two']);
      expect(Date.now() - started).toBeGreaterThan(CACHE_FRESH_TTL_MS - 1000);
      // The stale entry is still there, but no reader trusts it any more.
      expect(await access.redis.exists('auth:tok:stale-two')).toBe(1);
      expect(await access.redis.exists(CACHE_FRESH_KEY)).toBe(0);
      // Freshness is not renewed while the debt is open.
      await cache.keepFresh();
      expect(await access.redis.exists(CACHE_FRESH_KEY)).toBe(0);
    } finally {
      await relay.restore();
    }
    await new Promise<void>((resolve) => (redis.status === 'ready' ? resolve() : redis.once('ready', () => resolve())));
    await cache.keepFresh();
    expect(await access.redis.exists('auth:tok:stale-two')).toBe(0);
    expect(await access.redis.exists(CACHE_FRESH_KEY)).toBe(1);
  });
});
