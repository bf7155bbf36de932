import { Redis } from 'ioredis';
import { devSigningKey } from '@tracker/signing';
import { authCacheKey, CACHE_FRESH_KEY, signCacheEntry } from '@tracker/authz';
import { createRedisAclUser, testRedisUrl, type RedisAclUser } from '@tracker/testing';
import { newToken, principalOf, startFakeAccessForGateway, startGateway, tokenHashOf, whenReady, type FakeAccessForGateway } from './harness';

/**
 * REDIS_URL may carry a Redis ACL user and password (`redis://user:password@host:port/db`):
 * the gateway then uses the cache and counts requests as that user. A wrong password is
 * a clean degraded start: every token is checked with the access service, nothing crashes.
 */
let acl: RedisAclUser;
let admin: Redis;
let access: FakeAccessForGateway;

beforeAll(async () => {
  admin = new Redis(testRedisUrl());
  acl = await createRedisAclUser();
  access = await startFakeAccessForGateway();
});
afterAll(async () => {
  await admin.del(CACHE_FRESH_KEY);
  await acl.remove();
  await admin.quit();
  await access.close();
});

test('when REDIS_URL names an ACL user and its password, then the gateway reads the signed cache and counts requests as that user', async () => {
  const gw = await startGateway(access, { REDIS_URL: acl.urlWith(), RATE_LIMIT_PER_MINUTE: '1000' });
  try {
    await whenReady(gw.gateway.redis);
    expect(await gw.gateway.redis.call('ACL', 'WHOAMI')).toBe(acl.user);
    const token = newToken();
    const member = principalOf('member');
    const key = authCacheKey(tokenHashOf(token));
    await admin.set(key, signCacheEntry(devSigningKey('access'), key, member, 60), 'EX', 60);
    await admin.set(CACHE_FRESH_KEY, '1', 'PX', 60_000);
    const before = access.resolves();
    const remaining: Array<string | null> = [];
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${gw.url}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ principal: member });
      remaining.push(response.headers.get('ratelimit-remaining'));
    }
    expect(access.resolves()).toBe(before); // served from the cache
    expect(remaining).toEqual(['999', '998', '997']); // counted in Redis
    await admin.del(key);
  } finally {
    await gw.close();
  }
});

test('when the password in REDIS_URL is wrong, then the gateway starts, answers every request through the access service, and does not crash', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (err: unknown) => unhandled.push(err);
  process.on('unhandledRejection', onUnhandled);
  const gw = await startGateway(access, { REDIS_URL: acl.urlWith('wrong-password'), RATE_LIMIT_PER_MINUTE: '1000' });
  try {
    // Let it try (and fail) to authenticate a few times.
    await new Promise((r) => setTimeout(r, 500));
    expect(gw.gateway.redis.status).not.toBe('ready');
    const token = newToken();
    const member = principalOf('member');
    access.tokens.set(tokenHashOf(token), member);
    const before = access.resolves();
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${gw.url}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ principal: member });
      // No counter without Redis: the limit is announced, the remainder is not.
      expect(response.headers.get('ratelimit-remaining')).toBeNull();
    }
    expect(access.resolves()).toBe(before + 3);
    expect((await fetch(`${gw.url}/api/v1/me`, { headers: { authorization: `Bearer ${newToken()}` } })).status).toBe(401);
    expect((await fetch(`${gw.url}/readyz`)).status).toBe(200); // Redis is a cache: still ready
    expect(unhandled).toEqual([]);
  } finally {
    for (let i = 0; i < 100 && gw.gateway.redis.status !== 'reconnecting'; i++) await new Promise((r) => setTimeout(r, 10));
    await gw.close();
    process.off('unhandledRejection', onUnhandled);
  }
});
