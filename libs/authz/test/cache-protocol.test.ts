import {
  aclCacheKey,
  authCacheKey,
  CACHE_ENTRY_MEMO_MAX_LENGTH,
  CACHE_ENTRY_USE,
  cacheEntryReader,
  parseCachedToken,
  signCacheEntry,
  UNKNOWN_TOKEN,
} from '../src/cache-protocol';
import { type Logger } from '@tracker/kit';
import { devSigningKey, parseTrustedKeys, signingKeyFromSeed, signPayload, SIGNERS, type SigningKey } from '@tracker/signing';
import { randomBytes } from 'node:crypto';

const NOW = 1_700_000_000_000;
const access = devSigningKey('access');
const trusted = parseTrustedKeys(SIGNERS.map((s) => `${s}:${devSigningKey(s).publicKey}`).join(','));
const admin = { kind: 'user', userId: 7, workspaceId: 3, workspaceRole: 'admin', tokenId: 42 } as const;
const key = authCacheKey('a'.repeat(64));
const otherKey = authCacheKey('b'.repeat(64));

function reader(options: { maxEntries?: number; log?: Logger; at?: { now: number } } = {}) {
  const at = options.at ?? { now: NOW };
  return cacheEntryReader(trusted, { parse: (value) => parseCachedToken(value), log: options.log, maxEntries: options.maxEntries, now: () => at.now });
}

const fakeLog = () => {
  const warnings: Array<{ fields: any; message: string }> = [];
  return { warnings, log: { warn: (fields: unknown, message: string) => warnings.push({ fields, message }) } as unknown as Logger };
};

describe('signed authorization cache entries', () => {
  test('when the access service signs an entry for a key, then a reader of that key gets the value', () => {
    const text = signCacheEntry(access, key, admin, 60, NOW);
    expect(text).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{86}$/);
    expect(reader().read(key, text)).toEqual({ ok: true, value: admin });
    expect(reader().read(key, signCacheEntry(access, key, UNKNOWN_TOKEN, 60, NOW))).toEqual({ ok: true, value: UNKNOWN_TOKEN });
  });

  test('the payload binds the use, the Redis key and the expiry', () => {
    const text = signCacheEntry(access, key, admin, 60, NOW);
    const payload = JSON.parse(Buffer.from(text.split('.')[1]!, 'base64url').toString('utf8'));
    expect(payload).toEqual({ use: CACHE_ENTRY_USE, key, exp: NOW / 1000 + 60, value: admin });
  });

  const random = (signer: SigningKey['signer']) => signingKeyFromSeed(signer, randomBytes(32).toString('base64url'));

  test.each([
    ['plain JSON', 'not signed by the access service', JSON.stringify(admin)],
    ['the unknown-token marker as plain JSON', 'not signed by the access service', JSON.stringify(UNKNOWN_TOKEN)],
    ['an entry signed by the issues service', 'not signed by the access service', signCacheEntry(devSigningKey('issues'), key, admin, 60, NOW)],
    ['an entry signed by the gateway', 'not signed by the access service', signCacheEntry(devSigningKey('gateway'), key, admin, 60, NOW)],
    ['an entry signed by an access key nobody trusts', 'not signed by the access service', signCacheEntry(random('access'), key, admin, 60, NOW)],
    ['a genuine entry copied from another key', 'signed for another key', signCacheEntry(access, otherKey, admin, 60, NOW)],
    ['an expired entry', 'expired', signCacheEntry(access, key, admin, 60, NOW - 61_000)],
    ['an entry expiring this very second', 'expired', signCacheEntry(access, key, admin, 0, NOW)],
    ['other signed text of the access service (no cache use)', 'not a cache entry', signPayload(access, { key, exp: NOW / 1000 + 60, value: admin })],
    ['an entry without an expiry', 'not a cache entry', signPayload(access, { use: CACHE_ENTRY_USE, key, value: admin })],
    ['a principal with an extra field', 'malformed value', signCacheEntry(access, key, { ...admin, extra: 1 }, 60, NOW)],
    ['a principal with an unknown role', 'malformed value', signCacheEntry(access, key, { ...admin, workspaceRole: 'owner' }, 60, NOW)],
    ['a service principal', 'malformed value', signCacheEntry(access, key, { kind: 'service', service: 'access' }, 60, NOW)],
    ['a truncated signature', 'not signed by the access service', signCacheEntry(access, key, admin, 60, NOW).slice(0, -2)],
    ['garbage', 'not signed by the access service', 'v1.e30.AAAA'],
  ])('when Redis holds %s, then it is a miss (%s)', (_name, problem, text) => {
    expect(reader().read(key, text)).toEqual({ ok: false, problem });
  });

  test('when a payload is altered after signing, then it is a miss', () => {
    const [v, , signature] = signCacheEntry(access, key, { ...admin, workspaceRole: 'member' }, 60, NOW).split('.');
    const altered = Buffer.from(JSON.stringify({ use: CACHE_ENTRY_USE, key, exp: NOW / 1000 + 60, value: admin })).toString('base64url');
    expect(reader().read(key, `${v}.${altered}.${signature}`).ok).toBe(false);
  });

  test('when several access keys are trusted (rotation), then an entry signed by any of them is read', () => {
    const next = random('access');
    const both = parseTrustedKeys(`access:${access.publicKey},access:${next.publicKey}`);
    const entries = cacheEntryReader(both, { parse: parseCachedToken, now: () => NOW });
    expect(entries.read(key, signCacheEntry(next, key, admin, 60, NOW)).ok).toBe(true);
    expect(entries.read(key, signCacheEntry(access, key, admin, 60, NOW)).ok).toBe(true);
  });
});

describe('the reader remembers verified entries', () => {
  test('when the same entry is read many times, then its signature is checked once', () => {
    const entries = reader();
    const text = signCacheEntry(access, key, admin, 60, NOW);
    for (let i = 0; i < 1000; i++) expect(entries.read(key, text).ok).toBe(true);
    expect(entries.verifications).toBe(1);
  });

  test('when an entry is longer than the memo takes (a large grant list), then it is verified on every read and never held', () => {
    const entries = reader();
    const grants = { user_id: 1, workspace_id: 1, grants: Array.from({ length: 400 }, (_, i) => ({ queue_id: i + 1, role: 'read-only' })) };
    const aclKey = aclCacheKey(1);
    const text = signCacheEntry(access, aclKey, grants, 60, NOW);
    expect(text.length).toBeGreaterThan(CACHE_ENTRY_MEMO_MAX_LENGTH);
    const acl = cacheEntryReader(parseTrustedKeys(`access:${access.publicKey}`), { parse: (value) => value, now: () => NOW });
    for (let i = 0; i < 3; i++) expect(acl.read(aclKey, text).ok).toBe(true);
    expect(acl.verifications).toBe(3);
    expect(acl.size).toBe(0);
    expect(entries.size).toBe(0);
  });

  test('when a remembered entry passes its signed expiry, then it is a miss although it is remembered', () => {
    const at = { now: NOW };
    const entries = reader({ at });
    const text = signCacheEntry(access, key, admin, 60, NOW);
    expect(entries.read(key, text).ok).toBe(true);
    at.now = NOW + 59_999;
    expect(entries.read(key, text).ok).toBe(true);
    at.now = NOW + 60_000;
    expect(entries.read(key, text)).toEqual({ ok: false, problem: 'expired' });
    expect(entries.size).toBe(0);
  });

  test('when a remembered entry is read under another key, then it is still a miss', () => {
    const entries = reader();
    const text = signCacheEntry(access, key, admin, 60, NOW);
    expect(entries.read(key, text).ok).toBe(true);
    expect(entries.read(otherKey, text)).toEqual({ ok: false, problem: 'signed for another key' });
    expect(entries.read(key, text).ok).toBe(true);
  });

  test('when more entries are read than it holds, then the least recently used go first and it stays bounded', () => {
    const entries = reader({ maxEntries: 3 });
    const texts = [1, 2, 3, 4].map((n) => signCacheEntry(access, authCacheKey(String(n)), { ...admin, tokenId: n }, 60, NOW));
    const read = (n: number) => entries.read(authCacheKey(String(n)), texts[n - 1]!);
    read(1);
    read(2);
    read(3);
    read(1); // 1 is now the most recently used: 2 is the oldest
    read(4);
    expect(entries.size).toBe(3);
    const before = entries.verifications;
    read(1);
    read(3);
    read(4);
    expect(entries.verifications).toBe(before);
    read(2);
    expect(entries.verifications).toBe(before + 1);
    expect(entries.size).toBe(3);
  });

  test('when entries are rejected, then one warning is logged per 10 s, with the count since the last', () => {
    const at = { now: NOW };
    const { warnings, log } = fakeLog();
    const entries = reader({ at, log });
    for (let i = 0; i < 5; i++) entries.read(key, JSON.stringify(admin));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.fields).toEqual({ key: key.slice(0, 20), problem: 'not signed by the access service', rejectedSinceLastWarning: 1 });
    at.now += 10_000;
    entries.read(aclCacheKey(5), 'x');
    expect(warnings).toHaveLength(2);
    expect(warnings[1]!.fields.rejectedSinceLastWarning).toBe(5);
    // Accepted entries are never logged.
    entries.read(key, signCacheEntry(access, key, admin, 60, at.now));
    at.now += 10_000;
    entries.read(key, signCacheEntry(access, key, admin, 60, at.now));
    expect(warnings).toHaveLength(2);
  });
});

describe('parseCachedToken', () => {
  test.each([
    [admin, admin],
    [{ ...admin, workspaceRole: 'member' }, { ...admin, workspaceRole: 'member' }],
    [UNKNOWN_TOKEN, UNKNOWN_TOKEN],
    [{ kind: 'unknown-token', userId: 1 }, null],
    [{ ...admin, userId: '7' }, null],
    [{ ...admin, userId: 1.5 }, null],
    [[admin], null],
    [null, null],
    ['user', null],
  ])('%j → %j', (value, expected) => {
    expect(parseCachedToken(value)).toEqual(expected);
  });
});
