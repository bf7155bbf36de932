import { randomBytes } from 'node:crypto';
import { UserAcl } from '@tracker/contracts';
import { createLogger } from '@tracker/kit';
import { devSigningKey, devTrustedKeysText, parseTrustedKeys } from '@tracker/signing';
import { aclCacheKey, authCacheKey, CACHE_ENTRY_USE, cacheEntryReader, hashToken, parseCachedToken, UNKNOWN_TOKEN, UNKNOWN_TOKEN_TTL_SECONDS } from '@tracker/authz';
import { testRedisUrl, createRedisAclUser, type RedisAclUser } from '@tracker/testing';
import { sharedCache } from '../src/data-access/shared-cache';
import { getUserAcl } from '../src/domain/get-user-acl.use-case';
import { resolveToken } from '../src/domain/resolve-token.use-case';
import { startAccess, type AccessHarness } from './harness';

/**
 * What the access service writes into Redis is what the gateway and the grants reader
 * believe: signed with the access service's key, bound to its key and expiry. The same
 * holds over a Redis URL that carries an ACL user and password.
 */
const trusted = parseTrustedKeys(devTrustedKeysText());
const tokens = cacheEntryReader(trusted, { parse: parseCachedToken });
const acls = cacheEntryReader(trusted, { parse: (value) => UserAcl.nullable().catch(null).parse(value) });
const payloadOf = (text: string) => JSON.parse(Buffer.from(text.split('.')[1]!, 'base64url').toString('utf8'));

let access: AccessHarness;
beforeAll(async () => {
  access = await startAccess({ AUTH_CACHE_TTL_SECONDS: '120' });
});
afterAll(() => access.close());

describe('entries written by the access service', () => {
  test("when a token is resolved, then its principal is stored signed by the access key, for that token's key, expiring with its TTL", async () => {
    const ws = await access.workspace();
    const hash = hashToken(ws.admin.token);
    const { principal } = await resolveToken(access.service.deps, hash);
    const text = (await access.redis.get(authCacheKey(hash)))!;
    expect(text).toMatch(/^v1\./);
    expect(() => JSON.parse(text)).toThrow(); // no plain JSON any more
    expect(tokens.read(authCacheKey(hash), text)).toEqual({ ok: true, value: principal });
    const payload = payloadOf(text);
    expect(payload).toMatchObject({ use: CACHE_ENTRY_USE, key: authCacheKey(hash), value: principal });
    const now = Math.floor(Date.now() / 1000);
    expect(payload.exp).toBeGreaterThan(now + 115);
    expect(payload.exp).toBeLessThanOrEqual(now + 120);
    expect(await access.redis.ttl(authCacheKey(hash))).toBeGreaterThan(115);
    // Read under any other key it is nothing.
    expect(tokens.read(authCacheKey(hashToken(`trk_${'Q'.repeat(40)}`)), text).ok).toBe(false);
  });

  test('when no token has a hash, then the unknown-token marker is stored signed, expiring in a minute', async () => {
    const hash = hashToken(`trk_${randomBytes(30).toString('hex')}`);
    expect((await resolveToken(access.service.deps, hash)).principal).toBeNull();
    const text = (await access.redis.get(authCacheKey(hash)))!;
    expect(tokens.read(authCacheKey(hash), text)).toEqual({ ok: true, value: UNKNOWN_TOKEN });
    expect(payloadOf(text).exp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + UNKNOWN_TOKEN_TTL_SECONDS);
  });

  test("when a user's grants are looked up, then the list is stored signed for that user's key", async () => {
    const ws = await access.workspace();
    const member = await access.member(ws.id);
    const acl = await getUserAcl(access.service.deps, member.id);
    const text = (await access.redis.get(aclCacheKey(member.id)))!;
    expect(acls.read(aclCacheKey(member.id), text)).toEqual({ ok: true, value: acl });
    expect(acls.read(aclCacheKey(member.id + 1), text)).toEqual({ ok: false, problem: 'signed for another key' });
  });

  test('when a reader trusts every key but the access one, then no entry the access service wrote is believed', async () => {
    const ws = await access.workspace();
    const hash = hashToken(ws.admin.token);
    await resolveToken(access.service.deps, hash);
    const others = parseTrustedKeys(devTrustedKeysText().split(',').filter((entry) => !entry.startsWith('access:')).join(','));
    const strict = cacheEntryReader(others, { parse: parseCachedToken });
    expect(strict.read(authCacheKey(hash), (await access.redis.get(authCacheKey(hash)))!)).toEqual({ ok: false, problem: 'not signed by the access service' });
  });

  test("when the cache is built with another service's key, then it refuses to start", () => {
    expect(() => sharedCache(access.redis, access.service.pool, 60, createLogger('test', 'silent'), devSigningKey('issues'))).toThrow(/access service's key/);
  });
});

describe('with an ACL user and password in REDIS_URL', () => {
  let acl: RedisAclUser;
  beforeAll(async () => {
    acl = await createRedisAclUser();
  });
  afterAll(() => acl.remove());

  test('when the password is right, then the access service writes its signed entries as that user', async () => {
    const withAuth = await startAccess({ REDIS_URL: acl.urlWith() });
    try {
      await new Promise<void>((resolve) => (withAuth.service.redis.status === 'ready' ? resolve() : withAuth.service.redis.once('ready', () => resolve())));
      expect(await withAuth.service.redis.call('ACL', 'WHOAMI')).toBe(acl.user);
      const ws = await withAuth.workspace();
      const hash = hashToken(ws.admin.token);
      const { principal } = await resolveToken(withAuth.service.deps, hash);
      expect(tokens.read(authCacheKey(hash), (await access.redis.get(authCacheKey(hash)))!)).toEqual({ ok: true, value: principal });
    } finally {
      await withAuth.close();
    }
  });

  test('when the password is wrong, then the access service starts and resolves tokens without the cache', async () => {
    const wrong = await startAccess({ REDIS_URL: acl.urlWith('wrong-password') });
    try {
      await new Promise((r) => setTimeout(r, 300));
      expect(wrong.service.redis.status).not.toBe('ready');
      const ws = await wrong.workspace();
      const hash = hashToken(ws.admin.token);
      expect((await resolveToken(wrong.service.deps, hash)).principal).toMatchObject({ userId: ws.admin.id });
      expect(await access.redis.exists(authCacheKey(hash))).toBe(0);
      await wrong.service.cache.keepFresh(); // a no-op, not a crash
    } finally {
      for (let i = 0; i < 100 && wrong.service.redis.status !== 'reconnecting'; i++) await new Promise((r) => setTimeout(r, 10));
      await wrong.close();
    }
  });
});
