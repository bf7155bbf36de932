import { createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { devSigningKey, devTrustedKeysText, macPayload, macVerifiedPayload, parseTrustedKeys, sharedKeys, x25519PrivateOf, x25519PublicOf } from '../src/signing';

describe('keys shared by two parts', () => {
  test('the X25519 public key converted from an Ed25519 one is the public key of the converted private key (libsodium conversion)', () => {
    for (let i = 0; i < 20; i++) {
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      const fromPrivate = createPublicKey(x25519PrivateOf(privateKey)).export({ format: 'der', type: 'spki' });
      expect(x25519PublicOf(publicKey).export({ format: 'der', type: 'spki' })).toEqual(fromPrivate);
    }
  });

  test('both parts of a pair derive the same key, and each pair its own', () => {
    const trusted = parseTrustedKeys(devTrustedKeysText());
    const gatewayIssues = sharedKeys(devSigningKey('gateway'), trusted).with('issues');
    expect(sharedKeys(devSigningKey('issues'), trusted).with('gateway')).toEqual(gatewayIssues);
    expect(gatewayIssues).toHaveLength(1);
    expect(gatewayIssues[0]).toHaveLength(32);
    expect(sharedKeys(devSigningKey('gateway'), trusted).with('statistics')[0]).not.toEqual(gatewayIssues[0]);
    expect(sharedKeys(devSigningKey('statistics'), trusted).with('issues')[0]).not.toEqual(gatewayIssues[0]);
  });

  test('a tagged text verifies under its key only, and a peer no key is trusted for shares none', () => {
    const key = randomBytes(32);
    const text = macPayload([key], { a: 1 });
    expect(macVerifiedPayload(text, [key])).toEqual({ a: 1 });
    expect(macVerifiedPayload(text, [randomBytes(32)])).toBeNull();
    expect(macVerifiedPayload(text, [])).toBeNull();
    expect(sharedKeys(devSigningKey('gateway'), new Map()).with('issues')).toEqual([]);
    expect(() => macPayload([], { a: 1 })).toThrow();
  });
});
