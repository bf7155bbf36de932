import { createSecretKey, randomBytes } from 'node:crypto';
import { openSecret, sealSecret } from '../src/domain/secret-box';
import { newWebhookSecret } from '../src/domain/webhook-signature.rules';

describe('webhook secrets sealed at rest (AES-256-GCM)', () => {
  const key = randomBytes(32);

  test('what is sealed opens to the same secret, with the key as bytes or as a KeyObject; the sealed text holds no trace of it', () => {
    const secret = newWebhookSecret();
    const sealed = sealSecret(key, secret);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(secret.slice(6, 20));
    expect(openSecret(key, sealed)).toBe(secret);
    expect(openSecret(createSecretKey(key), sealed)).toBe(secret);
  });

  test('the same secret sealed twice differs (a new IV each time)', () => {
    const secret = newWebhookSecret();
    expect(sealSecret(key, secret)).not.toBe(sealSecret(key, secret));
  });

  test('a changed byte anywhere is refused', () => {
    const sealed = sealSecret(key, newWebhookSecret());
    const bytes = Buffer.from(sealed.slice(3), 'base64url');
    for (const at of [0, 12, 28, bytes.length - 1]) {
      const tampered = Buffer.from(bytes);
      tampered[at]! ^= 0x01;
      expect(() => openSecret(key, `v1.${tampered.toString('base64url')}`)).toThrow('does not open');
    }
    expect(() => openSecret(key, `v1.${bytes.subarray(0, 20).toString('base64url')}`)).toThrow('too short');
  });

  test('another key, or another context, does not open it', () => {
    const sealed = sealSecret(key, 'whsec_x', 'webhook 1');
    expect(openSecret(key, sealed, 'webhook 1')).toBe('whsec_x');
    expect(() => openSecret(randomBytes(32), sealed, 'webhook 1')).toThrow('does not open');
    expect(() => openSecret(key, sealed, 'webhook 2')).toThrow('does not open');
  });

  test('an unknown version, and a key not of 32 bytes, are refused', () => {
    const sealed = sealSecret(key, 'whsec_x');
    expect(() => openSecret(key, sealed.replace(/^v1\./, 'v2.'))).toThrow('unknown version ("v2")');
    expect(() => openSecret(key, 'whsec_x')).toThrow('unknown version');
    expect(() => sealSecret(randomBytes(16), 'whsec_x')).toThrow('32 bytes');
  });
});
