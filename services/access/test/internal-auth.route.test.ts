import { devSigningKey, devTrustedKeysText, parseTrustedKeys, verifiedPayload } from '@tracker/signing';
import { authCacheKey, hashToken, UNKNOWN_TOKEN_TTL_SECONDS } from '@tracker/authz';
import { sharedCache } from '../src/data-access/shared-cache';
import { createToken } from '../src/domain/create-token.use-case';
import { revokeToken } from '../src/domain/revoke-token.use-case';
import { startAccess, type AccessHarness } from './harness';

const gateway = { kind: 'service', service: 'gateway' } as const;
/** The value of a cache entry, which the access service signs (libs/authz cache-protocol.ts). */
const signedValue = (text: string | null) => verifiedPayload(text, 'access', parseTrustedKeys(devTrustedKeysText()))?.value;

let access: AccessHarness;
beforeAll(async () => {
  access = await startAccess();
});
afterAll(() => access.close());

const resolve = (token: string) =>
  access.call('POST', '/internal/auth/resolve', { as: gateway, body: { token_hash: hashToken(token) } });

describe('POST /internal/auth/resolve', () => {
  test('when the token is valid, then its principal is returned and cached for the gateway', async () => {
    const ws = await access.workspace();
    const res = await resolve(ws.admin.token);
    expect(res.status).toBe(200);
    expect(res.body.principal).toEqual({ kind: 'user', userId: ws.admin.id, workspaceId: ws.id, workspaceRole: 'admin', tokenId: expect.any(Number) });
    const cached = await access.redis.get(authCacheKey(hashToken(ws.admin.token)));
    expect(signedValue(cached)).toEqual(res.body.principal);
    expect(await access.redis.ttl(authCacheKey(hashToken(ws.admin.token)))).toBeGreaterThan(0);
  });

  test('when no token has the hash, then null, remembered as unknown for at most a minute', async () => {
    const token = `trk_${'a'.repeat(40)}`;
    const res = await resolve(token);
    expect(res.body).toEqual({ principal: null });
    expect(signedValue(await access.redis.get(authCacheKey(hashToken(token))))).toEqual({ kind: 'unknown-token' });
    expect(await access.redis.ttl(authCacheKey(hashToken(token)))).toBeGreaterThan(0);
    expect(await access.redis.ttl(authCacheKey(hashToken(token)))).toBeLessThanOrEqual(UNKNOWN_TOKEN_TTL_SECONDS);
  });

  test('when a token exists but may not be used (revoked, owner deactivated), then nothing is cached for it', async () => {
    const ws = await access.workspace();
    const member = await access.member(ws.id);
    const off = await access.call('PATCH', `/api/v1/users/${member.id}`, { as: ws.admin.principal, body: { active: false } });
    expect(off.status).toBe(200);
    expect((await resolve(member.token)).body).toEqual({ principal: null });
    expect(await access.redis.exists(authCacheKey(hashToken(member.token)))).toBe(0);
  });

  test('when a token is revoked, then its cache entry is gone before the revoke returns and it resolves to null', async () => {
    const ws = await access.workspace();
    const extra = await createToken(access.service.deps, { userId: ws.admin.id });
    await resolve(extra.token);
    expect(await access.redis.exists(authCacheKey(hashToken(extra.token)))).toBe(1);
    await revokeToken(access.service.deps, { tokenId: extra.token_id });
    expect(await access.redis.exists(authCacheKey(hashToken(extra.token)))).toBe(0);
    expect((await resolve(extra.token)).body.principal).toBeNull();
    // The owner's other token is untouched.
    expect((await resolve(ws.admin.token)).body.principal).not.toBeNull();
  });

  test('when a user is deactivated, then all their tokens stop resolving; reactivation restores them', async () => {
    const ws = await access.workspace();
    const member = await access.member(ws.id);
    const second = await createToken(access.service.deps, { userId: member.id });
    await resolve(member.token);
    await resolve(second.token);
    await access.call('PATCH', `/api/v1/users/${member.id}`, { as: ws.admin.principal, body: { active: false } });
    for (const token of [member.token, second.token]) {
      expect(await access.redis.exists(authCacheKey(hashToken(token)))).toBe(0);
      expect((await resolve(token)).body.principal).toBeNull();
    }
    await access.call('PATCH', `/api/v1/users/${member.id}`, { as: ws.admin.principal, body: { active: true } });
    expect((await resolve(member.token)).body.principal).toMatchObject({ userId: member.id });
  });

  test('when a member is promoted, then the next resolve carries the admin role', async () => {
    const ws = await access.workspace();
    const member = await access.member(ws.id);
    expect((await resolve(member.token)).body.principal.workspaceRole).toBe('member');
    await access.call('PATCH', `/api/v1/users/${member.id}`, { as: ws.admin.principal, body: { role: 'admin' } });
    expect(await access.redis.exists(authCacheKey(hashToken(member.token)))).toBe(0);
    expect((await resolve(member.token)).body.principal.workspaceRole).toBe('admin');
  });

  test('when a user principal or a bad body is sent, then 401 or 422', async () => {
    const ws = await access.workspace();
    const asUser = await access.call('POST', '/internal/auth/resolve', { as: ws.admin.principal, body: { token_hash: hashToken(ws.admin.token) } });
    expect(asUser.status).toBe(401);
    const bad = await access.call('POST', '/internal/auth/resolve', { as: gateway, body: { token_hash: 'nope' } });
    expect(bad.status).toBe(422);
  });

  test('when revoke resolves race, then no stale principal is left in the cache', async () => {
    const ws = await access.workspace();
    for (let round = 0; round < 10; round++) {
      const extra = await createToken(access.service.deps, { userId: ws.admin.id });
      await Promise.all([resolve(extra.token), resolve(extra.token), revokeToken(access.service.deps, { tokenId: extra.token_id }), resolve(extra.token)]);
      expect(await access.redis.exists(authCacheKey(hashToken(extra.token)))).toBe(0);
      expect((await resolve(extra.token)).body.principal).toBeNull();
    }
  });
});

describe('with Redis unreachable', () => {
  test('tokens still resolve, changes still apply, and cache deletes are settled once Redis is back', async () => {
    const offline = await startAccess({ REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      const ws = await offline.workspace();
      const member = await offline.member(ws.id);
      // Seed a stale entry as if it had been cached before the outage.
      await offline.redis.set(authCacheKey(hashToken(member.token)), JSON.stringify({ stale: true }));
      expect((await offline.call('POST', '/internal/auth/resolve', { as: gateway, body: { token_hash: hashToken(member.token) } })).body.principal).toMatchObject({ userId: member.id });
      const patched = await offline.call('PATCH', `/api/v1/users/${member.id}`, { as: ws.admin.principal, body: { active: false } });
      expect(patched.status).toBe(200);
      expect((await offline.call('POST', '/internal/auth/resolve', { as: gateway, body: { token_hash: hashToken(member.token) } })).body.principal).toBeNull();
      const debts = await offline.schema.query(`SELECT key FROM "${offline.schema.schema}".auth_cache_debts`);
      expect(debts).toEqual([{ key: authCacheKey(hashToken(member.token)) }]);

      // Redis is back (a client that reaches it): the recorded delete is carried out.
      const settled = await sharedCache(offline.redis, offline.service.pool, 60, offline.service.logger, devSigningKey('access')).settleDebts();
      expect(settled).toBe(1);
      expect(await offline.redis.exists(authCacheKey(hashToken(member.token)))).toBe(0);
      expect(await offline.schema.query(`SELECT key FROM "${offline.schema.schema}".auth_cache_debts`)).toEqual([]);
    } finally {
      await offline.close();
    }
  });
});
