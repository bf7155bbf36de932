import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

/**
 * Ed25519 keys of the parts of the system. Each part signs with its own private key
 * (INTERNAL_SIGNING_KEY) and every part knows the others' public keys
 * (INTERNAL_TRUSTED_KEYS), so a part can prove who it is but never speak as another:
 * only the gateway's key vouches for a user, only the access service's key for a
 * cached principal or grant, only the publisher's key for an event.
 */
export const SIGNERS = ['gateway', 'access', 'issues', 'statistics', 'agent'] as const;
export type Signer = (typeof SIGNERS)[number];

export const isSigner = (name: unknown): name is Signer => (SIGNERS as readonly unknown[]).includes(name);

/** A private key as its 32-byte seed in base64url (43 characters). */
const SEED = /^[A-Za-z0-9_-]{43}$/;
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const SIGNATURE = /^[A-Za-z0-9_-]{86}$/;

export interface SigningKey {
  signer: Signer;
  privateKey: KeyObject;
  /** The public half, base64url of its 32 raw bytes: what others put in INTERNAL_TRUSTED_KEYS. */
  publicKey: string;
}

/** Public keys by signer; several for one signer while its key is rotated. */
export type TrustedKeys = ReadonlyMap<Signer, readonly KeyObject[]>;

/** Strict base64url: the text must be exactly what encoding its bytes gives (no padding, no stray characters). */
export function strictBase64url(text: string): Buffer | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : null;
}

export function signingKeyFromSeed(signer: Signer, seed: string): SigningKey {
  if (!SEED.test(seed)) throw new Error('a signing key is 32 bytes in base64url (43 characters)');
  const bytes = strictBase64url(seed);
  if (!bytes || bytes.length !== 32) throw new Error('a signing key is 32 bytes in base64url (43 characters)');
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, bytes]), format: 'der', type: 'pkcs8' });
  return { signer, privateKey, publicKey: publicKeyText(createPublicKey(privateKey)) };
}

export function publicKeyFromText(text: string): KeyObject {
  const bytes = strictBase64url(text);
  if (!bytes || bytes.length !== 32) throw new Error('a public key is 32 bytes in base64url (43 characters)');
  return createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, bytes]), format: 'der', type: 'spki' });
}

const publicKeyText = (key: KeyObject) => key.export({ format: 'der', type: 'spki' }).subarray(SPKI_ED25519_PREFIX.length).toString('base64url');

/**
 * Development keys, derived from each signer's name, so every service starts alone on a
 * laptop and the parts trust each other with no set-up. Everyone can derive them: a
 * production start refuses them (config.ts).
 */
export const devSeedOf = (signer: Signer) => createHash('sha256').update(`tracker-development-key:${signer}`).digest().toString('base64url');
export const devSigningKey = (signer: Signer) => signingKeyFromSeed(signer, devSeedOf(signer));
export const DEV_PUBLIC_KEYS: ReadonlySet<string> = new Set(SIGNERS.map((signer) => devSigningKey(signer).publicKey));
export const devTrustedKeysText = () => SIGNERS.map((signer) => `${signer}:${devSigningKey(signer).publicKey}`).join(',');

/** Parses `signer:publicKey,signer:publicKey,...`; throws with a message naming the bad entry. */
export function parseTrustedKeys(text: string): TrustedKeys {
  const keys = new Map<Signer, KeyObject[]>();
  for (const entry of text.split(',').map((e) => e.trim()).filter(Boolean)) {
    const [signer, key, ...rest] = entry.split(':');
    if (!isSigner(signer) || !key || rest.length > 0) throw new Error(`"${entry.slice(0, 60)}" is not signer:publicKey (signers: ${SIGNERS.join(', ')})`);
    keys.set(signer, [...(keys.get(signer) ?? []), publicKeyFromText(key)]);
  }
  return keys;
}

/** `v1.<payload>.<signature>`: the payload's JSON in base64url, signed by `key`. */
export function signPayload(key: SigningKey, payload: unknown): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `v1.${body}.${sign(null, Buffer.from(`v1.${body}`), key.privateKey).toString('base64url')}`;
}

/**
 * The payload of a `signPayload` text whose signature verifies with one of `signer`'s
 * trusted keys, or null. Strict: any other shape, encoding or signer is null.
 */
export function verifiedPayload(text: unknown, signer: Signer, trusted: TrustedKeys, maxLength = 16_384): Record<string, unknown> | null {
  if (typeof text !== 'string' || text.length > maxLength) return null;
  const parts = text.split('.');
  if (parts.length !== 3 || parts[0] !== 'v1' || !SIGNATURE.test(parts[2]!)) return null;
  const body = strictBase64url(parts[1]!);
  const signature = strictBase64url(parts[2]!);
  if (!body || !signature) return null;
  const signed = Buffer.from(`v1.${parts[1]}`);
  if (!(trusted.get(signer) ?? []).some((key) => verify(null, signed, key, signature))) return null;
  try {
    const payload: unknown = JSON.parse(body.toString('utf8'));
    return payload && typeof payload === 'object' && !Array.isArray(payload) ? (payload as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
