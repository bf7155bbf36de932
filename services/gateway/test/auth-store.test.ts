import { Redis } from 'ioredis';
import { authCacheKey, CACHE_FRESH_KEY, signCacheEntry, UNKNOWN_TOKEN } from '@tracker/authz';
import { devSigningKey, devTrustedKeysText, parseTrustedKeys } from '@tracker/signing';
import { testRedisUrl } from '@tracker/testing';
import { authStore } from '../src/data-access/auth-store';
import { authFailureKey, rateLimitKey } from '../src/domain/rate-limit';
import { newToken, principalOf, tokenHashOf, whenReady } from './harness';

/** The lookup's one scripted command against a real Redis. */
let redis: Redis;
let admin: Redis;
const store = () => authStore(redis, parseTrustedKeys(devTrustedKeysText()));
// A window of its own per test file run, so counters start from nothing.
const windowId = 1_000_000 + Math.floor(Math.random() * 1_000_000);

beforeAll(async () => {
  redis = new Redis(testRedisUrl());
  admin = new Redis(testRedisUrl());
  await whenReady(redis);
  await admin.set(CACHE_FRESH_KEY, '1', 'PX', 120_000);
});
afterAll(async () => {
  await admin.del(CACHE_FRESH_KEY);
  redis.disconnect();
  admin.disconnect();
});

async function cachedToken(value: Parameters<typeof signCacheEntry>[2]) {
  const tokenHash = tokenHashOf(newToken());
  const key = authCacheKey(tokenHash);
  await admin.set(key, signCacheEntry(devSigningKey('access'), key, value, 60), 'EX', 60);
  return tokenHash;
}

describe('auth store lookup', () => {
  test('when the principal is cached and the cache is fresh, then it is answered and each counted request adds one, in a window that expires', async () => {
    const member = principalOf('member');
    const tokenHash = await cachedToken(member);
    const lookups = store();

    const first = await lookups.lookup(tokenHash, windowId, true, '192.0.2.1');
    const second = await lookups.lookup(tokenHash, windowId, true, '192.0.2.1');

    expect(first).toEqual({ token: member, requests: 1, failures: 0 });
    expect(second.requests).toBe(2);
    const ttl = await admin.ttl(rateLimitKey(tokenHash, windowId));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(61);
  });

  test('when the request is not counted, then no counter is written and none is answered', async () => {
    const tokenHash = await cachedToken(principalOf('admin'));
    expect((await store().lookup(tokenHash, windowId, false, '192.0.2.2')).requests).toBeNull();
    expect(await admin.exists(rateLimitKey(tokenHash, windowId))).toBe(0);
  });

  test('when the client has failed before, then its failures are answered beside a missing principal', async () => {
    await admin.set(authFailureKey('192.0.2.3', windowId), '7', 'EX', 60);
    const lookup = await store().lookup(tokenHashOf(newToken()), windowId, true, '192.0.2.3');
    expect(lookup).toEqual({ token: 'ask-access', requests: null, failures: 7 });
  });

  test('when the cache holds nothing for a token, then the lookup counts nothing and leaves no counter: made-up tokens grow nothing in Redis', async () => {
    const tokenHash = tokenHashOf(newToken());
    expect((await store().lookup(tokenHash, windowId, true, '192.0.2.8')).requests).toBeNull();
    expect(await admin.exists(rateLimitKey(tokenHash, windowId))).toBe(0);
  });

  test('when a token the access service resolved is counted apart, then it shares the window\'s counter, which expires', async () => {
    const tokenHash = tokenHashOf(newToken());
    const lookups = store();
    expect(await lookups.countRequest(tokenHash, windowId)).toBe(1);
    expect(await lookups.countRequest(tokenHash, windowId)).toBe(2);
    const ttl = await admin.ttl(rateLimitKey(tokenHash, windowId));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(61);
  });

  test('when a token is remembered as unknown, then it is unknown without asking the access service', async () => {
    const tokenHash = await cachedToken(UNKNOWN_TOKEN);
    expect((await store().lookup(tokenHash, windowId, true, '192.0.2.4')).token).toBe('unknown-token');
  });

  test('when the cache is not fresh, then a cached principal is not trusted', async () => {
    const tokenHash = await cachedToken(principalOf('member'));
    await admin.del(CACHE_FRESH_KEY);
    try {
      expect((await store().lookup(tokenHash, windowId, true, '192.0.2.5')).token).toBe('ask-access');
    } finally {
      await admin.set(CACHE_FRESH_KEY, '1', 'PX', 120_000);
    }
  });

  test('when Redis has forgotten the script (a restart, SCRIPT FLUSH), then the lookup still answers', async () => {
    const member = principalOf('member');
    const tokenHash = await cachedToken(member);
    const lookups = store();
    await lookups.lookup(tokenHash, windowId, true, '192.0.2.6');
    await admin.call('SCRIPT', 'FLUSH');
    expect((await lookups.lookup(tokenHash, windowId, true, '192.0.2.6')).token).toEqual(member);
  });

  test('when a key holds another type, then the lookup degrades to asking the access service, never to a decision', async () => {
    const tokenHash = await cachedToken(principalOf('member'));
    await admin.hset(authFailureKey('192.0.2.7', windowId), 'not', 'a counter');
    await admin.expire(authFailureKey('192.0.2.7', windowId), 60);
    expect(await store().lookup(tokenHash, windowId, true, '192.0.2.7')).toEqual({ token: 'ask-access', requests: null, failures: 0 });
  });
});
