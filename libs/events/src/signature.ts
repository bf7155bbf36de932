import { createHash } from 'node:crypto';
// The signing module alone (node:crypto only), not the whole kit: publishers' domain code imports this library.
import { isSigner, signPayload, strictBase64url, verifiedPayload, type Signer, type SigningKey, type TrustedKeys } from '@tracker/kit/src/signing';
import { eventSourceOf, type EventEnvelope, type EventType } from './events';

/**
 * Who published an event. The relay signs every message with the publishing service's
 * Ed25519 key (libs/kit signing.ts) in one header:
 *
 *   x-tracker-signature: signPayload(key, { signer, event_id, type, digest })
 *
 * where `digest` is the SHA-256 (base64url) of the exact body bytes sent. One signature
 * (~22 µs) and one hash per message at the relay; one verification (~60 µs) and one hash
 * per delivery at the consumer. The consumer accepts an event only if the signature
 * verifies under a trusted key of the event type's source (`eventSourceOf`), names that
 * source, the body's event_id and type, and the digest of the body it received.
 *
 * A genuine message replayed later is accepted again (signatures carry no time): that is
 * harmless, because consumers apply an event only when its revision is newer than what
 * they hold, exactly as for the broker's own redeliveries.
 */
export const EVENT_SIGNATURE_HEADER = 'x-tracker-signature';

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

/** The headers to publish `content` (the JSON of `event`) with, signed by `key`. */
export const signedEventHeaders = (key: SigningKey, event: { event_id: string; type: string }, content: Buffer): Record<string, string> => ({
  [EVENT_SIGNATURE_HEADER]: signEventMessage(key, event, content),
});

/**
 * Checks the signature header of a delivered message against the event parsed from its
 * body `content`: one verification under the keys of the source of `event.type`. Only
 * when that fails is the signer the payload claims tried too (to tell a genuine signature
 * of the wrong component from a forgery in logs and metrics); either way it is refused.
 */
export function checkEventSignature(header: unknown, event: Pick<EventEnvelope, 'event_id' | 'type'>, content: Buffer, trusted: TrustedKeys): SignatureCheck {
  const expected = eventSourceOf[event.type as EventType];
  if (typeof header !== 'string' || header === '') return { ok: false, reason: 'unsigned', expected };
  const claims = verifiedPayload(header, expected, trusted);
  if (claims) {
    const matches = claims.signer === expected && claims.event_id === event.event_id && claims.type === event.type && claims.digest === bodyDigestOf(content);
    return matches ? { ok: true, signer: expected } : { ok: false, reason: 'bad_signature', expected, claimed: String(claims.signer) };
  }
  const claimed = claimedSigner(header);
  if (claimed && claimed !== expected && verifiedPayload(header, claimed, trusted)) return { ok: false, reason: 'wrong_source', expected, claimed };
  return { ok: false, reason: 'bad_signature', expected, ...(claimed ? { claimed } : {}) };
}

/** The signer an (unverified) signature payload names, for diagnostics only. */
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
