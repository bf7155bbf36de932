import { Redis } from 'ioredis';
import { devSigningKey } from '@tracker/signing';
import { authCacheKey, CACHE_FRESH_KEY, signCacheEntry, UNKNOWN_TOKEN } from '@tracker/authz';
import { testRedisUrl } from '@tracker/testing';
import { newToken, principalOf, startFakeAccessForGateway, startGateway, tokenHashOf, whenReady, type FakeAccessForGateway, type GatewayUnderTest } from './harness';

/**
 * Whoever can write Redis must not be able to authenticate as anyone: the gateway
 * believes a cached principal only if the access service signed it for that token
 * hash's key and it has not expired. Everything else is a cache miss, decided by the
 * access service, exactly as if nothing were cached.
 */
let access: FakeAccessForGateway;
let gw: GatewayUnderTest;
let redis: Redis;

beforeAll(async () => {
  access = await startFakeAccessForGateway();
  gw = await startGateway(access, { REDIS_URL: testRedisUrl() });
  await whenReady(gw.gateway.redis);
  redis = new Redis(testRedisUrl());
});
afterAll(async () => {
  await redis.del(CACHE_FRESH_KEY);
  redis.disconnect();
  await gw.close();
  await access.close();
});
// The access service keeps this key alive while the cache may be trusted.
beforeEach(() => redis.set(CACHE_FRESH_KEY, '1', 'PX', 60_000));

const ACCESS = devSigningKey('access');
const keyOf = (token: string) => authCacheKey(tokenHashOf(token));
/** What the access service stores for a token (cache-protocol.ts: signCacheEntry). */
const genuine = (token: string, value: unknown, ttlSeconds = 60) => signCacheEntry(ACCESS, keyOf(token), value, ttlSeconds);

async function cached(token: string, text: string) {
  await redis.set(keyOf(token), text, 'EX', 60);
}

describe('forged principals in the Redis cache grant nothing', () => {
  test('when a plain JSON admin principal is written for a token no one has, then 401 after asking the access service', async () => {
    const token = newToken();
    await cached(token, JSON.stringify(principalOf('admin')));
    const before = access.resolves();
    expect((await gw.me(token)).status).toBe(401);
    expect(access.resolves()).toBe(before + 1);
  });

  test("when a genuine signed entry of an admin's token is copied under another token's key, then that token gets 401", async () => {
    const adminToken = newToken();
    const admin = principalOf('admin');
    access.tokens.set(tokenHashOf(adminToken), admin);
    const attacker = newToken();
    await cached(attacker, genuine(adminToken, admin));
    const before = access.resolves();
    expect((await gw.me(attacker)).status).toBe(401);
    expect(access.resolves()).toBe(before + 1);
  });

  test.each(['issues', 'gateway', 'statistics', 'agent'] as const)('when an entry is signed with the %s key instead of the access key, then 401', async (signer) => {
    const token = newToken();
    await cached(token, signCacheEntry(devSigningKey(signer), keyOf(token), principalOf('admin'), 60));
    const before = access.resolves();
    expect((await gw.me(token)).status).toBe(401);
    expect(access.resolves()).toBe(before + 1);
  });

  test('when a genuine entry has passed its signed expiry (Redis kept it longer), then the access service decides', async () => {
    const token = newToken();
    const revoked = principalOf('admin'); // the access service no longer knows this token
    await cached(token, signCacheEntry(ACCESS, keyOf(token), revoked, 60, Date.now() - 61_000));
    const before = access.resolves();
    expect((await gw.me(token)).status).toBe(401);
    expect(access.resolves()).toBe(before + 1);
  });

  test('when a member token has a forged admin principal written over its entry, then it is still a member', async () => {
    const token = newToken();
    const member = principalOf('member');
    access.tokens.set(tokenHashOf(token), member);
    await cached(token, JSON.stringify({ ...member, workspaceRole: 'admin' }));
    const res = await gw.me(token);
    expect(res).toEqual({ status: 200, principal: member });
  });

  test('when a forged unknown-token marker is written for a valid token, then the token still works (the access service is asked)', async () => {
    const token = newToken();
    const member = principalOf('member');
    access.tokens.set(tokenHashOf(token), member);
    await cached(token, JSON.stringify(UNKNOWN_TOKEN));
    expect(await gw.me(token)).toEqual({ status: 200, principal: member });
  });

  test('when Redis holds garbage for a token, then the access service decides', async () => {
    const token = newToken();
    const member = principalOf('member');
    access.tokens.set(tokenHashOf(token), member);
    for (const text of ['{not json', 'v1.e30.AAAA', genuine(token, member).slice(0, -3), '']) {
      await cached(token, text);
      expect(await gw.me(token)).toEqual({ status: 200, principal: member });
    }
  });
});

describe('genuine entries still serve from the cache', () => {
  test('when the access service signed the principal for this token, then the gateway uses it without asking (even with access down)', async () => {
    const token = newToken();
    const member = principalOf('member');
    await cached(token, genuine(token, member));
    const before = access.resolves();
    access.setDown(true);
    try {
      for (let i = 0; i < 5; i++) expect(await gw.me(token)).toEqual({ status: 200, principal: member });
    } finally {
      access.setDown(false);
    }
    expect(access.resolves()).toBe(before);
  });

  test('when the access service signed the unknown-token marker, then 401 without asking', async () => {
    const token = newToken();
    await cached(token, genuine(token, UNKNOWN_TOKEN));
    const before = access.resolves();
    expect((await gw.me(token)).status).toBe(401);
    expect(access.resolves()).toBe(before);
  });

  test('when the signed entry is deleted or replaced, then the very next request follows Redis (nothing is trusted from memory alone)', async () => {
    const token = newToken();
    const member = principalOf('member');
    await cached(token, genuine(token, member));
    expect(await gw.me(token)).toEqual({ status: 200, principal: member });
    await redis.del(keyOf(token));
    expect((await gw.me(token)).status).toBe(401); // the access service does not know it
    const promoted = { ...member, workspaceRole: 'admin' as const };
    await cached(token, genuine(token, promoted));
    expect(await gw.me(token)).toEqual({ status: 200, principal: promoted });
  });

  test('when the freshness key is absent, then even a genuine entry is not used', async () => {
    const token = newToken();
    await cached(token, genuine(token, principalOf('admin')));
    await redis.del(CACHE_FRESH_KEY);
    const before = access.resolves();
    expect((await gw.me(token)).status).toBe(401);
    expect(access.resolves()).toBe(before + 1);
  });
});
