import { createHash } from 'node:crypto';
// @tracker/signing (node:crypto only), not the whole kit: publishers' domain code imports this library.
import { isSigner, macPayload, macVerifiedPayload, sharedKeys, signPayload, strictBase64url, verifiedPayload, type Signer, type SigningKey, type TrustedKeys } from '@tracker/signing';
import { eventSourceOf, type EventEnvelope, type EventType } from './events';

/**
 * Who published an event. The relay proves it on every message in one header, in one of
 * two forms:
 *
 *   x-tracker-event-tag: macPayload(keys shared with each consumer, { signer, use: 'event', event_id, type, digest })
 *   x-tracker-signature: signPayload(key, { signer, event_id, type, digest })
 *
 * where `digest` is the SHA-256 (base64url) of the exact body bytes sent. The tag (the
 * default) is an HMAC-SHA256 under the key the publisher shares with each consumer
 * (EVENT_CONSUMERS; @tracker/signing sharedKeys, derived for events alone): about
 * 2 µs to make and to check. The signature (INTERNAL_TICKETS=signed, while consumers of
 * an older version run) is Ed25519: about 30 µs to make and 85 µs to check, which was
 * half of the statistics service's CPU per event. Either proves as much to a consumer:
 * only the event type's source (`eventSourceOf`) holds its private key, and only that
 * source and the consumer can derive the key they share. The consumer accepts an event
 * only if the proof verifies for that source, names it, the body's event_id and type, and
 * the digest of the body it received; a consumer accepts both forms.
 *
 * A genuine message replayed later is accepted again (proofs carry no time): that is
 * harmless, because consumers apply an event only when its revision is newer than what
 * they hold, exactly as for the broker's own redeliveries.
 */
export const EVENT_SIGNATURE_HEADER = 'x-tracker-signature';
export const EVENT_TAG_HEADER = 'x-tracker-event-tag';

/** The parts that consume events: a tagged message carries a tag for each. */
export const EVENT_CONSUMERS: readonly Signer[] = ['statistics', 'notifications'];
/** As many tags as one text carries (libs/kit macPayload): one key of each consumer, two of each while both rotate at once. */
const MAX_EVENT_TAGS = 4;

/** A part's own key and whom it believes (kit InternalKeys): what tags are made and checked with. */
export interface EventKeys {
  key: SigningKey;
  trusted: TrustedKeys;
}

/** Why a message's signature was refused. */
export type SignatureRefusal =
  /** No signature header (or not a string). */
  | 'unsigned'
  /** A signature that does not verify under any key of the type's source, or that signs another body or event. */
  | 'bad_signature'
  /** A genuine signature, but by a component that does not publish this event type (e.g. the agent, or issues on a user event). */
  | 'wrong_source';

export type SignatureCheck = { ok: true; signer: Signer } | { ok: false; reason: SignatureRefusal; expected: Signer; claimed?: string };

/** The SHA-256 of the body bytes, base64url. */
export const bodyDigestOf = (content: Buffer): string => createHash('sha256').update(content).digest('base64url');

/**
 * The signature header value for `content`, the exact bytes that will be published as
 * the body of `event`, signed by `key` (its owner's name goes into the signed payload).
 */
export function signEventMessage(key: SigningKey, event: { event_id: string; type: string }, content: Buffer): string {
  return signPayload(key, { signer: key.signer, event_id: event.event_id, type: event.type, digest: bodyDigestOf(content) });
}

/**
 * The tag header value for `content`, the exact bytes that will be published as the body
 * of `event`: one tag under each key the publisher shares with a consumer.
 */
export function tagEventMessage(own: EventKeys, event: { event_id: string; type: string }, content: Buffer): string {
  return macPayload(eventTagKeys(own), { signer: own.key.signer, use: 'event', event_id: event.event_id, type: event.type, digest: bodyDigestOf(content) });
}

/**
 * The keys a publisher tags its events under, one per trusted key of each consumer. Throws,
 * saying why, where there are none or too many, or a trusted key admits no agreement: a
 * relay asks at start, so such a configuration stops it there rather than failing every
 * message.
 */
export function eventTagKeys(own: EventKeys): readonly Buffer[] {
  const shared = sharedKeys(own.key, own.trusted, 'event');
  const keys = EVENT_CONSUMERS.flatMap((consumer) => {
    if ((own.trusted.get(consumer) ?? []).length === 0) throw new Error(`cannot tag events: no public key of ${consumer} is trusted (INTERNAL_TRUSTED_KEYS)`);
    return shared.with(consumer);
  });
  if (keys.length > MAX_EVENT_TAGS) throw new Error(`cannot tag events: more than ${MAX_EVENT_TAGS} keys of their consumers are trusted (INTERNAL_TRUSTED_KEYS)`);
  return keys;
}

/** The headers to publish `content` (the JSON of `event`) with, signed by `key`. */
export const signedEventHeaders = (key: SigningKey, event: { event_id: string; type: string }, content: Buffer): Record<string, string> => ({
  [EVENT_SIGNATURE_HEADER]: signEventMessage(key, event, content),
});

/** The headers to publish `content` (the JSON of `event`) with, tagged for the consumers. */
export const taggedEventHeaders = (own: EventKeys, event: { event_id: string; type: string }, content: Buffer): Record<string, string> => ({
  [EVENT_TAG_HEADER]: tagEventMessage(own, event, content),
});

/**
 * Checks the proof of a delivered message against the event parsed from its body
 * `content`: its tag header if it has one (checked by `own`, the consumer, under the keys
 * it shares with the source of `event.type`), else its signature header (under the
 * source's public keys).
 */
export function checkEventProof(headers: { signature: unknown; tag: unknown }, event: Pick<EventEnvelope, 'event_id' | 'type'>, content: Buffer, own: EventKeys): SignatureCheck {
  try {
    return typeof headers.tag === 'string' && headers.tag !== ''
      ? checkEventTag(headers.tag, event, content, own)
      : checkEventSignature(headers.signature, event, content, own.trusted);
  } catch {
    // A proof that cannot even be checked (a trusted key that admits no agreement, a
    // payload whose signer is no text) is a proof that does not verify: refused, never a throw.
    return { ok: false, reason: 'bad_signature', expected: eventSourceOf[event.type as EventType] };
  }
}

/** A signature header checked under the public keys of the source of `event.type`. */
export function checkEventSignature(header: unknown, event: Pick<EventEnvelope, 'event_id' | 'type'>, content: Buffer, trusted: TrustedKeys): SignatureCheck {
  return checkClaims(header, event, content, (text, signer) => verifiedPayload(text, signer, trusted));
}

/** A tag header checked by `own` under the keys it shares with the source of `event.type`. */
export function checkEventTag(header: unknown, event: Pick<EventEnvelope, 'event_id' | 'type'>, content: Buffer, own: EventKeys): SignatureCheck {
  const shared = sharedKeys(own.key, own.trusted, 'event');
  return checkClaims(header, event, content, (text, signer) => {
    const claims = macVerifiedPayload(text, shared.with(signer));
    return claims?.use === 'event' ? claims : null;
  });
}

/**
 * One check of a proof (`claimsOf`: its payload if it verifies for a signer): for the
 * source of the event's type, then, only when that fails, for the signer the payload
 * claims (to tell a genuine proof of the wrong component from a forgery in logs and
 * metrics); either way it is refused.
 */
function checkClaims(
  header: unknown,
  event: Pick<EventEnvelope, 'event_id' | 'type'>,
  content: Buffer,
  claimsOf: (text: string, signer: Signer) => Record<string, unknown> | null,
): SignatureCheck {
  const expected = eventSourceOf[event.type as EventType];
  if (typeof header !== 'string' || header === '') return { ok: false, reason: 'unsigned', expected };
  const claims = claimsOf(header, expected);
  if (claims) {
    const matches = claims.signer === expected && claims.event_id === event.event_id && claims.type === event.type && claims.digest === bodyDigestOf(content);
    return matches ? { ok: true, signer: expected } : { ok: false, reason: 'bad_signature', expected, claimed: String(claims.signer) };
  }
  const claimed = claimedSigner(header);
  if (claimed && claimed !== expected && claimsOf(header, claimed)) return { ok: false, reason: 'wrong_source', expected, claimed };
  return { ok: false, reason: 'bad_signature', expected, ...(claimed ? { claimed } : {}) };
}

/** The signer an (unverified) signature or tag payload names, for diagnostics only. */
function claimedSigner(header: string): Signer | undefined {
  if (header.length > 16_384) return undefined;
  const body = strictBase64url(header.split('.')[1] ?? '');
  if (!body || body.length > 4096) return undefined;
  try {
    const signer = (JSON.parse(body.toString('utf8')) as { signer?: unknown } | null)?.signer;
    return isSigner(signer) ? signer : undefined;
  } catch {
    return undefined;
  }
}
