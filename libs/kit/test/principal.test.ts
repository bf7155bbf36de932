import { createHmac } from 'node:crypto';
import { PRINCIPAL_TTL_SECONDS, signPrincipal, verifyPrincipal, type Principal } from '../src/principal';

const SECRET = 'principal-test-secret-0123456789abcdef';
const OLD_SECRET = 'principal-test-old-secret-0123456789abc';
const NOW = 1_700_000_000_000;

const user: Principal = { kind: 'user', userId: 7, workspaceId: 3, workspaceRole: 'member', tokenId: 42 };
const service: Principal = { kind: 'service', service: 'gateway' };

/** Signs any payload text exactly as the module does, so only the payload itself is at fault. */
function forge(payloadText: string, secret = SECRET): string {
  const payload = Buffer.from(payloadText).toString('base64url');
  const signature = createHmac('sha256', secret).update(`v1.${payload}`).digest('base64url');
  return `v1.${payload}.${signature}`;
}

const future = Math.floor(NOW / 1000) + 60;

describe('signPrincipal / verifyPrincipal', () => {
  test.each([
    ['a user principal', user],
    ['a workspace admin', { ...user, workspaceRole: 'admin' } as Principal],
    ['a service principal', service],
  ])('when %s is signed and verified with the same secret, then the same principal comes back', (_name, principal) => {
    const header = signPrincipal(principal, SECRET, NOW);
    expect(verifyPrincipal(header, [SECRET], NOW)).toEqual(principal);
  });

  test('when a header is signed, then it has the form v1.<payload>.<signature> and does not carry the secret', () => {
    const header = signPrincipal(user, SECRET, NOW);
    expect(header).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(header).not.toContain(SECRET);
  });

  test('when the header is verified with another secret, then null', () => {
    expect(verifyPrincipal(signPrincipal(user, SECRET, NOW), ['another-secret-0123456789abcdefghij'], NOW)).toBeNull();
  });

  test('when no secret is accepted at all, then null', () => {
    expect(verifyPrincipal(signPrincipal(user, SECRET, NOW), [], NOW)).toBeNull();
  });

  test('when the secret was rotated, then a header signed with the previous secret is accepted while it is still listed', () => {
    const header = signPrincipal(user, OLD_SECRET, NOW);
    expect(verifyPrincipal(header, [SECRET, OLD_SECRET], NOW)).toEqual(user);
    expect(verifyPrincipal(header, [SECRET], NOW)).toBeNull();
  });

  describe('expiry', () => {
    const header = signPrincipal(user, SECRET, NOW);
    const expiresAt = NOW + PRINCIPAL_TTL_SECONDS * 1000;

    test('when verified at the last millisecond of its lifetime, then it is accepted', () => {
      expect(verifyPrincipal(header, [SECRET], expiresAt)).toEqual(user);
    });

    test('when verified one millisecond after it expired, then null', () => {
      expect(verifyPrincipal(header, [SECRET], expiresAt + 1)).toBeNull();
    });

    test('when verified an hour later, then null', () => {
      expect(verifyPrincipal(header, [SECRET], NOW + 3_600_000)).toBeNull();
    });
  });

  describe('tampering', () => {
    const header = signPrincipal(user, SECRET, NOW);
    const [version, payload, signature] = header.split('.') as [string, string, string];

    test('when the payload is replaced by another principal but the signature kept, then null', () => {
      const admin = Buffer.from(JSON.stringify({ ...user, workspaceRole: 'admin', exp: future })).toString('base64url');
      expect(verifyPrincipal(`${version}.${admin}.${signature}`, [SECRET], NOW)).toBeNull();
    });

    test('when one character of the payload is changed, then null', () => {
      const changed = (payload[0] === 'A' ? 'B' : 'A') + payload.slice(1);
      expect(verifyPrincipal(`${version}.${changed}.${signature}`, [SECRET], NOW)).toBeNull();
    });

    test('when one character of the signature is changed, then null', () => {
      const changed = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
      expect(verifyPrincipal(`${version}.${payload}.${changed}`, [SECRET], NOW)).toBeNull();
    });

    test('when the signature is truncated, then null rather than an exception', () => {
      expect(verifyPrincipal(`${version}.${payload}.${signature.slice(0, 20)}`, [SECRET], NOW)).toBeNull();
    });

    test('when the version prefix is changed (the MAC itself would still match), then null', () => {
      expect(verifyPrincipal(`v2.${payload}.${signature}`, [SECRET], NOW)).toBeNull();
    });

    test.each([
      ['an extra segment after the signature', () => `${header}.extra`],
      ['an empty extra segment', () => `${header}.`],
      ['a segment inserted before the signature', () => `${version}.${payload}.x.${signature}`],
    ])('when the header has %s, then null', (_name, make) => {
      expect(verifyPrincipal(make(), [SECRET], NOW)).toBeNull();
    });

    test.each([
      ['undefined', undefined],
      ['empty', ''],
      ['only the version', 'v1'],
      ['without a signature', `v1.${payload}`],
      ['with an empty payload', `v1..${signature}`],
      ['with an empty signature', `v1.${payload}.`],
    ])('when the header is %s, then null', (_name, value) => {
      expect(verifyPrincipal(value, [SECRET], NOW)).toBeNull();
    });
  });

  describe('size', () => {
    const withName = (length: number) => signPrincipal({ kind: 'service', service: 's'.repeat(length) }, SECRET, NOW);

    test('when a correctly signed header is just under 2048 characters, then it is accepted', () => {
      const header = withName(1450);
      expect(header.length).toBeGreaterThan(1990);
      expect(header.length).toBeLessThanOrEqual(2048);
      expect(verifyPrincipal(header, [SECRET], NOW)).toEqual({ kind: 'service', service: 's'.repeat(1450) });
    });

    test('when a correctly signed header is longer than 2048 characters, then null', () => {
      const header = withName(1500);
      expect(header.length).toBeGreaterThan(2048);
      expect(verifyPrincipal(header, [SECRET], NOW)).toBeNull();
    });
  });

  describe('payloads with a valid MAC', () => {
    test.each([
      ['not JSON', '{"kind":"user",'],
      ['JSON null', 'null'],
      ['a JSON array', '[]'],
      ['a JSON number', '5'],
    ])('when the payload is %s, then null', (_name, text) => {
      expect(verifyPrincipal(forge(text), [SECRET], NOW)).toBeNull();
    });

    test('when a well-formed payload is forged with the secret, then it is accepted (the forge helper signs as the module does)', () => {
      expect(verifyPrincipal(forge(JSON.stringify({ ...user, exp: future })), [SECRET], NOW)).toEqual(user);
    });

    const { userId: _userId, ...withoutUserId } = user as Extract<Principal, { kind: 'user' }>;
    const { tokenId: _tokenId, ...withoutTokenId } = user as Extract<Principal, { kind: 'user' }>;
    test.each<[string, Record<string, unknown>]>([
      ['no exp', { ...user }],
      ['exp as a string', { ...user, exp: String(future) }],
      ['no kind', { service: 'gateway', exp: future }],
      ['an unknown kind', { kind: 'robot', service: 'gateway', exp: future }],
      ['a service without a name', { kind: 'service', exp: future }],
      ['a service name that is a number', { kind: 'service', service: 5, exp: future }],
      ['a user without userId', { ...withoutUserId, exp: future }],
      ['a user without tokenId', { ...withoutTokenId, exp: future }],
      ['userId as a string', { ...user, userId: '7', exp: future }],
      ['userId as a fraction', { ...user, userId: 7.5, exp: future }],
      ['workspaceId beyond the safe integers', { ...user, workspaceId: 2 ** 60, exp: future }],
      ['an unknown workspace role', { ...user, workspaceRole: 'owner', exp: future }],
      ['a workspace role in capitals', { ...user, workspaceRole: 'ADMIN', exp: future }],
    ])('when the payload has %s, then null', (_name, body) => {
      expect(verifyPrincipal(forge(JSON.stringify(body)), [SECRET], NOW)).toBeNull();
    });
  });
});
