import { createCipheriv, createDecipheriv, KeyObject, randomBytes } from 'node:crypto';

/**
 * Webhook secrets at rest. The service signs every delivery with the secret, so it must be
 * able to read it back: it cannot be hashed like a password, so it is sealed with
 * AES-256-GCM under WEBHOOK_SECRETS_KEY (config.webhooks.secretsKey).
 *
 * Sealed text: `v1.` and the base64url of a random 12-byte IV, the 16-byte tag and the
 * ciphertext. The prefix names the format and the key it was sealed with: a key rotation
 * adds `v2` (a second key) and reseals; openSecret refuses a version it does not know.
 * `context` (optional, e.g. the webhook's id) is authenticated, not stored: a sealed value
 * copied to another row then fails to open.
 */
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** 32 bytes: config.webhooks.secretsKey (a KeyObject) or the raw bytes. */
export type SecretsKey = KeyObject | Buffer;

export function sealSecret(key: SecretsKey, plain: string, context = ''): string {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`;
}

/** The secret sealed in `sealed`; throws when it was altered, sealed under another key or context, or is no sealed text. */
export function openSecret(key: SecretsKey, sealed: string, context = ''): string {
  checkKey(key);
  const dot = sealed.indexOf('.');
  const version = dot < 0 ? '' : sealed.slice(0, dot);
  if (version !== VERSION) throw new Error(`a sealed secret of an unknown version ("${version.slice(0, 10)}")`);
  const bytes = Buffer.from(sealed.slice(dot + 1), 'base64url');
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new Error('a sealed secret too short to be one');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new Error('a sealed secret that does not open: altered, or sealed under another key or context');
  }
}

function checkKey(key: SecretsKey) {
  const size = key instanceof KeyObject ? key.symmetricKeySize : key.length;
  if (size !== 32) throw new Error('the secrets key must be 32 bytes');
}
