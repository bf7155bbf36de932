import { createHash, createHmac, createPrivateKey, createPublicKey, diffieHellman, hkdfSync, sign, timingSafeEqual, verify, type KeyObject } from 'node:crypto';

/**
 * Ed25519 keys of the parts of the system. Each part signs with its own private key
 * (INTERNAL_SIGNING_KEY) and every part knows the others' public keys
 * (INTERNAL_TRUSTED_KEYS), so a part can prove who it is but never speak as another:
 * only the gateway's key vouches for a user, only the access service's key for a
 * cached principal or grant, only the publisher's key for an event. A text tagged under
 * a key two parts share (below) is not signed: either of the two could have made it.
 */
export const SIGNERS = ['gateway', 'access', 'issues', 'statistics', 'agent', 'notifications'] as const;
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
  const opened = openUnverified(text, maxLength);
  return opened && signedBy(opened, trusted.get(signer) ?? []) ? opened.payload : null;
}

/**
 * A signed (`v1.`) or tagged (`m1.`) text taken apart, its payload decoded but not yet
 * trusted: so a reader that must learn from the payload whose keys to try (a ticket
 * names its issuer) decodes it once (openUnverified), then checks it with signedBy or taggedUnder.
 */
export interface OpenedText {
  format: 'v1' | 'm1';
  payload: Record<string, unknown>;
  /** The text the signature or tags were made over: the format and the encoded payload. */
  signed: string;
  /** The Ed25519 signature (v1) or the HMAC tags (m1), as bytes. */
  seals: Buffer[];
}

/**
 * `text` taken apart if it has the exact shape of a signed or tagged text (strict
 * base64url, a JSON object), else null. Nothing in it is trusted until signedBy or
 * taggedUnder says so.
 */
export function openUnverified(text: unknown, maxLength = 16_384): OpenedText | null {
  if (typeof text !== 'string' || text.length > maxLength) return null;
  const parts = text.split('.');
  const format = parts[0];
  if (format === 'v1' ? parts.length !== 3 : format === 'm1' ? parts.length < 3 || parts.length > 2 + MAX_TAGS : true) return null;
  const sealShape = format === 'v1' ? SIGNATURE : MAC;
  const seals: Buffer[] = [];
  for (const part of parts.slice(2)) {
    const seal = sealShape.test(part) ? strictBase64url(part) : null;
    if (!seal || (format === 'm1' && seal.length !== 32)) return null;
    seals.push(seal);
  }
  const body = strictBase64url(parts[1]!);
  if (!body) return null;
  try {
    const payload: unknown = JSON.parse(body.toString('utf8'));
    if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return null;
    return { format: format as OpenedText['format'], payload: payload as Record<string, unknown>, signed: `${format}.${parts[1]}`, seals };
  } catch {
    return null;
  }
}

/** Whether an opened `v1.` text is signed by one of `keys`. */
export function signedBy(opened: OpenedText, keys: readonly KeyObject[]): boolean {
  return opened.format === 'v1' && keys.some((key) => verify(null, Buffer.from(opened.signed), key, opened.seals[0]!));
}

// ---------------------------------------------------------------------------------------
// Keys shared by two parts, for tickets of one hop (principal.ts). Verifying an Ed25519
// signature costs about 0.1 ms of CPU, signing 0.04 ms, on every request of every hop;
// an HMAC-SHA256 under a key only the two parts can derive costs 0.003 ms. Each pair's
// key comes from X25519 key agreement over the parts' own Ed25519 keys (converted as
// libsodium's crypto_sign_ed25519_*_to_curve25519 do), so no new key is configured: the
// private key of one of the two and the public key of the other are needed, and only the
// two parts hold either. So a tag proves less than a signature: to the part that checks
// it, that the text comes from the other part or from itself. Whoever holds that part's
// key can make it too, so a tag vouches for nothing the checker's key may not say itself
// (a user, for one: principal.ts carries the gateway's signature for that).

const PKCS8_X25519_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');
const SPKI_X25519_PREFIX = Buffer.from('302a300506032b656e032100', 'hex');
const FIELD = 2n ** 255n - 19n;

/** The 32 raw bytes of an Ed25519 key (the seed of a private key, the point of a public one). */
const rawKey = (key: KeyObject) =>
  key.type === 'private'
    ? key.export({ format: 'der', type: 'pkcs8' }).subarray(PKCS8_ED25519_PREFIX.length)
    : key.export({ format: 'der', type: 'spki' }).subarray(SPKI_ED25519_PREFIX.length);

/** The X25519 private key of an Ed25519 one: the first half of SHA-512 of its seed (X25519 clamps it). */
export function x25519PrivateOf(ed25519Private: KeyObject): KeyObject {
  const scalar = createHash('sha512').update(rawKey(ed25519Private)).digest().subarray(0, 32);
  return createPrivateKey({ key: Buffer.concat([PKCS8_X25519_PREFIX, scalar]), format: 'der', type: 'pkcs8' });
}

/** The X25519 public key of an Ed25519 one: u = (1 + y) / (1 − y) over the field of Curve25519. */
export function x25519PublicOf(ed25519Public: KeyObject): KeyObject {
  const bytes = Buffer.from(rawKey(ed25519Public));
  bytes[31]! &= 0x7f; // the sign of x, which u does not depend on
  const y = BigInt(`0x${Buffer.from(bytes).reverse().toString('hex')}`);
  const u = ((1n + y) * powMod((1n - y + FIELD) % FIELD, FIELD - 2n)) % FIELD;
  const uBytes = Buffer.from(u.toString(16).padStart(64, '0'), 'hex').reverse();
  return createPublicKey({ key: Buffer.concat([SPKI_X25519_PREFIX, uBytes]), format: 'der', type: 'spki' });
}

function powMod(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  for (let b = base % FIELD, e = exponent; e > 0n; e >>= 1n, b = (b * b) % FIELD) if (e & 1n) result = (result * b) % FIELD;
  return result;
}

/** The keys `own` shares with each other part: one per public key trusted for it (two while it rotates). */
export interface SharedKeys {
  with(peer: Signer): readonly Buffer[];
}

/**
 * What a shared key is for: tickets of one hop (principal.ts) or events on the broker
 * (libs/events signature.ts). Each use derives its own key, so a text tagged for one can
 * never pass for the other.
 */
export type SharedKeyUse = 'ticket' | 'event';

const sharedKeysCache = new WeakMap<SigningKey, WeakMap<TrustedKeys, Map<SharedKeyUse, SharedKeys>>>();

export function sharedKeys(own: SigningKey, trusted: TrustedKeys, use: SharedKeyUse = 'ticket'): SharedKeys {
  const cached = sharedKeysCache.get(own)?.get(trusted)?.get(use);
  if (cached) return cached;
  const ownX25519 = x25519PrivateOf(own.privateKey);
  const byPeer = new Map<Signer, readonly Buffer[]>();
  const keys: SharedKeys = {
    with(peer) {
      let found = byPeer.get(peer);
      if (!found) {
        // The pair's names, in order, bind the key to these two parts and this use.
        const info = `tracker ${use} mac v1:${[own.signer, peer].sort().join(':')}`;
        found = (trusted.get(peer) ?? []).map((publicKey) =>
          Buffer.from(hkdfSync('sha256', diffieHellman({ privateKey: ownX25519, publicKey: x25519PublicOf(publicKey) }), '', info, 32)),
        );
        byPeer.set(peer, found);
      }
      return found;
    },
  };
  if (!sharedKeysCache.has(own)) sharedKeysCache.set(own, new WeakMap());
  const byTrusted = sharedKeysCache.get(own)!;
  if (!byTrusted.has(trusted)) byTrusted.set(trusted, new Map());
  byTrusted.get(trusted)!.set(use, keys);
  return keys;
}

const MAC = /^[A-Za-z0-9_-]{43}$/;
/** At most this many tags on one text: one per public key of the receiver (two during its rotation), with room. */
const MAX_TAGS = 4;
const tagOf = (key: Buffer, signed: string) => createHmac('sha256', key).update(signed).digest();

/** `m1.<payload>.<tag>[.<tag>]`: the payload's JSON in base64url, with an HMAC-SHA256 tag under each key given. */
export function macPayload(keys: readonly Buffer[], payload: unknown): string {
  if (keys.length === 0 || keys.length > MAX_TAGS) throw new Error(`a text is tagged under 1 to ${MAX_TAGS} shared keys`);
  const signed = `m1.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  return [signed, ...keys.map((key) => tagOf(key, signed).toString('base64url'))].join('.');
}

/** The payload of a `macPayload` text with a tag made under one of `keys`, or null. Strict as verifiedPayload. */
export function macVerifiedPayload(text: unknown, keys: readonly Buffer[], maxLength = 16_384): Record<string, unknown> | null {
  const opened = openUnverified(text, maxLength);
  return opened && taggedUnder(opened, keys) ? opened.payload : null;
}

/** Whether an opened `m1.` text carries a tag made under one of `keys`. */
export function taggedUnder(opened: OpenedText, keys: readonly Buffer[]): boolean {
  if (opened.format !== 'm1') return false;
  const expected = keys.map((key) => tagOf(key, opened.signed));
  return opened.seals.some((tag) => expected.some((want) => timingSafeEqual(tag, want)));
}
