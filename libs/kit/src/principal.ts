import { createHash, randomUUID } from 'node:crypto';
import { isSigner, macPayload, openUnverified, sharedKeys, signedBy, signPayload, taggedUnder, verifiedPayload, type OpenedText, type Signer, type SigningKey, type TrustedKeys } from '@tracker/signing';

/**
 * Every call to a service carries a ticket in this header: who is calling, vouched for by
 * the part that issued it (@tracker/signing), and bound to the one request it was made
 * for: its method, path and query, a digest of its body, the service it is addressed to
 * (`aud`), when it was issued and a unique id. Services verify all of it and accept each
 * ticket once (seen-tickets.ts), so a captured header opens no other route, method, body or
 * service, and cannot be replayed.
 *
 * A ticket is tagged (HMAC-SHA256, `m1.`) under the key its issuer shares with the
 * service it is addressed to. Only those two parts can derive that key (@tracker/signing
 * sharedKeys), so that service alone can check the ticket. But that service can also
 * make one: the tag binds the ticket to its hop and request, it does not tell which of the
 * two made it. So a tagged ticket names a user only by the gateway's own Ed25519
 * signature: a vouch (`vch`, the user principal signed for VOUCH_TTL_SECONDS). The
 * gateway signs one per user for the tickets of those minutes, and each service verifies
 * a vouch once and remembers it (vouchReader): per request still an HMAC and a Map
 * lookup. A tagged ticket or proof with a bare `sub` is refused. A service's key thus lets
 * its holder speak as that service, and read the vouches that reach it, but never as the
 * gateway for a user of its choosing: a vouch it read passes only under its own pair key
 * (at that same service) and only for the minutes the vouch lives. Signed tickets
 * (Ed25519, `v1.`) are the gateway's signature over the whole ticket, `sub` included, and
 * are accepted everywhere: parts sign instead of tagging with INTERNAL_TICKETS=signed (a
 * rolling upgrade), and tests and the bench sign with a signing key alone.
 *
 * - A user, as the gateway authenticated them: issued by the gateway alone.
 * - A user through the agent: issued by the agent, carrying the gateway's proof (`act`)
 *   that the user is calling the agent now. The agent cannot name the user itself. The
 *   gateway's ticket for the user's /mcp request carries one proof for each service the
 *   agent may call for a user (AGENT_CALLS), each with the gateway's vouch for the user.
 *   Each proof is tagged under the key the gateway shares with that service. So only that
 *   service can check it, the agent can neither make nor alter one, and a proof is good
 *   at its own service only. A proof lives as long as the ticket it came in, and never
 *   passes for a ticket. When the gateway signs (INTERNAL_TICKETS=signed), the agent hands
 *   on the gateway's signed ticket itself, which every service verifies with the
 *   gateway's public key.
 * - A service calling another service's /internal API: issued by itself; what it may
 *   call there is the callee's list (ServiceAppOptions.internalCallers).
 */
export const PRINCIPAL_HEADER = 'x-tracker-principal';

/** The client's address as the gateway counts it (behind a proxy, from the proxy's header): what /auth throttles by. */
export const CLIENT_HEADER = 'x-tracker-client';

/** Headers only the gateway may set; it strips any copy a client sends. */
export const INTERNAL_HEADERS = [PRINCIPAL_HEADER, CLIENT_HEADER] as const;

export type WorkspaceRole = 'admin' | 'member';

export type Principal =
  | { kind: 'user'; userId: number; workspaceId: number; workspaceRole: WorkspaceRole; tokenId: number }
  | { kind: 'service'; service: Signer };

export type UserPrincipal = Extract<Principal, { kind: 'user' }>;

/** How long a ticket is good for: the hop it is made for takes milliseconds. */
export const TICKET_TTL_SECONDS = 15;
/** Clocks may differ this much; a ticket issued further in the future is refused. */
export const CLOCK_SKEW_SECONDS = 5;
/**
 * The longest ticket, the gateway's to the agent (a vouch in it and in each of its four
 * proofs), is about 4,900 characters at the largest ids while every receiver rotates.
 */
const MAX_HEADER_LENGTH = 6144;

/**
 * How long the gateway's vouch for a user is good for: minutes, so one signature (and at
 * each service one verification) serves the user's tickets of those minutes, and a vouch
 * read by a leaked key soon ends.
 */
export const VOUCH_TTL_SECONDS = 300;
/** The gateway signs a new vouch once its last one has less than this left: more than any ticket carrying it lives. */
const VOUCH_RENEW_SECONDS = 60;
/** Vouches remembered: by the gateway, those it signed; by each service, those it verified. */
export const VOUCH_MEMO_MAX = 10_000;
/** A vouch is about 350 characters at the largest ids: anything longer is not one. */
const MAX_VOUCH_LENGTH = 512;

/** The services the agent calls for a user: the gateway's ticket to the agent carries a proof for each. */
export const AGENT_CALLS = ['access', 'issues', 'statistics', 'notifications'] as const satisfies readonly Signer[];
export type AgentCall = (typeof AGENT_CALLS)[number];
/** What the agent hands on as `act` to each service it calls for the user. */
export type Proofs = Readonly<Record<AgentCall, string>>;

export interface TicketRequest {
  audience: Signer;
  method: string;
  /** Path and query exactly as sent. */
  path: string;
  body?: Uint8Array;
  /** The user the call is for; unset for a service's own call. */
  user?: UserPrincipal;
  /** The agent's proof, for this service, that a user is calling it now (Proofs); the user comes from it alone. */
  onBehalfOf?: string;
}

const digestOf = (body: Uint8Array) => createHash('sha256').update(body).digest('base64url');
/** Most requests have no body: its digest is computed once. */
const NO_BODY_DIGEST = digestOf(new Uint8Array());
export const bodyDigest = (body: Uint8Array | undefined) => (body && body.length > 0 ? digestOf(body) : NO_BODY_DIGEST);

/** A part's own key and the public keys it trusts (config's InternalKeys): what tagging and checking tickets need. */
export interface TicketKeys {
  key: SigningKey;
  trusted: TrustedKeys;
  /** false: sign every ticket (INTERNAL_TICKETS=signed, during a rolling upgrade from signed-only parts). */
  tagTickets?: boolean;
}

const isTicketKeys = (keys: SigningKey | TicketKeys | TrustedKeys): keys is TicketKeys => 'trusted' in keys && 'key' in keys;

/** A ticket for one request: tagged with `keys` (the services), signed with a bare signing key (tests, bench). */
export function issueTicket(keys: SigningKey | TicketKeys, request: TicketRequest, now = Date.now()): string {
  const key = isTicketKeys(keys) ? keys.key : keys;
  const iat = Math.floor(now / 1000);
  // A unique id: randomUUID draws from a cached pool of entropy, where randomBytes asks the
  // system each time (9 µs a ticket in the gateway's profile, 3 % of its CPU).
  const jti = randomUUID();
  const tagged = isTicketKeys(keys) && keys.tagTickets !== false;
  // Tagged, the user is named by the gateway's signed vouch: a bare `sub` under a tag is refused (the receiver could have tagged it).
  const vouch = tagged && key.signer === 'gateway' && request.user ? vouchFor(key, request.user, iat) : undefined;
  // A user's call to the agent carries the proofs it hands on (signed, the agent hands on the ticket itself).
  const proofs = vouch && request.audience === 'agent' && isTicketKeys(keys) ? gatewayProofs(keys, vouch, iat, jti) : undefined;
  const claims = {
    use: 'ticket',
    iss: key.signer,
    aud: request.audience,
    ...(vouch ? { vch: vouch } : request.user ? { sub: request.user } : {}),
    ...(request.onBehalfOf ? { act: request.onBehalfOf } : {}),
    ...(proofs ? { prf: proofs } : {}),
    m: request.method.toUpperCase(),
    p: request.path,
    bd: bodyDigest(request.body),
    iat,
    exp: iat + TICKET_TTL_SECONDS,
    jti,
  };
  return tagged ? macPayload(sharedKeys(keys.key, keys.trusted).with(request.audience), claims) : signPayload(key, claims);
}

/**
 * The gateway's proofs that the user of `vouch` is calling the agent now, one for each
 * service the agent calls, tagged under the key the gateway shares with that service. They
 * share the ticket's lifetime and id: they come from that one request.
 */
function gatewayProofs(keys: TicketKeys, vouch: string, iat: number, jti: string): Proofs {
  const shared = sharedKeys(keys.key, keys.trusted);
  const proofOf = (service: AgentCall) => macPayload(shared.with(service), { use: 'proof', iss: 'gateway', aud: service, vch: vouch, iat, exp: iat + TICKET_TTL_SECONDS, jti });
  return { access: proofOf('access'), issues: proofOf('issues'), statistics: proofOf('statistics'), notifications: proofOf('notifications') };
}

interface SignedVouch {
  text: string;
  iat: number;
  exp: number;
}

const vouchesSigned = new WeakMap<SigningKey, Map<string, SignedVouch>>();

/**
 * The gateway's vouch for `user` (`key` being the gateway's): the one it signed last for
 * them while that has VOUCH_RENEW_SECONDS left, else a new one. Signing costs 0.04 ms, a
 * lookup next to nothing, and a service verifies each distinct vouch once.
 */
function vouchFor(key: SigningKey, user: UserPrincipal, iat: number): string {
  let signed = vouchesSigned.get(key);
  if (!signed) vouchesSigned.set(key, (signed = new Map()));
  // Exactly what is signed, so two principals that differ sign apart.
  const { userId, workspaceId, workspaceRole, tokenId } = user;
  const id = `${userId}:${workspaceId}:${workspaceRole}:${tokenId}`;
  const last = signed.get(id);
  // Never one issued after `iat`: a ticket would carry a vouch from its future.
  if (last && last.iat <= iat && last.exp - iat >= VOUCH_RENEW_SECONDS) return last.text;
  const exp = iat + VOUCH_TTL_SECONDS;
  const text = signPayload(key, { use: 'vouch', iss: key.signer, sub: { kind: 'user', userId, workspaceId, workspaceRole, tokenId }, iat, exp });
  signed.delete(id);
  signed.set(id, { text, iat, exp });
  forgetOldest(signed, iat * 1000, VOUCH_MEMO_MAX);
  return text;
}

/**
 * Drops, oldest first, the entries of `memo` that have expired by `now` (ms) or are more
 * than `max`: insertion order is nearly expiry order (every vouch lives as long), so the
 * sweep stops at the first live one.
 */
function forgetOldest(memo: Map<string, { exp: number }>, now: number, max: number): void {
  for (const [id, { exp }] of memo) {
    if ((exp + CLOCK_SKEW_SECONDS) * 1000 <= now || memo.size > max) memo.delete(id);
    else break;
  }
}

/** The request a ticket is checked against, as the service received it. */
export interface ReceivedRequest {
  audience: Signer;
  method: string;
  path: string;
  /** bodyDigest of the bytes received; unset before the body is read (compare `bodyDigest` of the result then). */
  bodyDigest?: string;
}

export type TicketCheck =
  | {
      ok: true;
      principal: Principal;
      jti: string;
      expiresAt: number;
      bodyDigest: string;
      /** On the gateway's ticket to the agent for a user: what the agent hands on to each service it calls for them. */
      proofs?: Proofs;
    }
  | { ok: false; reason: string };

/**
 * Verifies a ticket against the request it arrived with: a tagged one with the keys this
 * service shares (`keys` being TicketKeys), a signed one with the public keys trusted. The
 * gateway's ticket to the agent for a user also gives the proofs the agent hands on.
 * Replays are not detected here (that needs memory shared by the service's replicas:
 * seen-tickets.ts).
 */
export function checkTicket(header: string | undefined, keys: TrustedKeys | TicketKeys, request: ReceivedRequest, now = Date.now()): TicketCheck {
  if (!header || header.length > MAX_HEADER_LENGTH) return { ok: false, reason: 'no ticket' };
  // Opened once: the payload names the issuer, whose keys then check it.
  const opened = openUnverified(header, MAX_HEADER_LENGTH);
  const issuer = opened?.payload.iss;
  // Signed or tagged texts of other kinds (cache entries, events, proofs) never pass for a ticket.
  if (!opened || !isSigner(issuer) || !sealedBy(opened, issuer, keys) || opened.payload.use !== 'ticket') return { ok: false, reason: 'bad signature' };
  const claims = opened.payload;
  const timing = timingProblem(claims, now);
  if (timing) return { ok: false, reason: timing };
  if (claims.aud !== request.audience) return { ok: false, reason: 'addressed to another service' };
  if (typeof claims.bd !== 'string' || claims.m !== request.method || claims.p !== request.path || (request.bodyDigest !== undefined && claims.bd !== request.bodyDigest)) {
    return { ok: false, reason: 'made for another request' };
  }
  if (typeof claims.jti !== 'string' || !/^[A-Za-z0-9_-]{16,64}$/.test(claims.jti)) return { ok: false, reason: 'no ticket id' };
  const principal = principalOf(opened, keys, request.audience, now);
  if (!principal) return { ok: false, reason: 'not a principal its signer may vouch for' };
  const checked = { ok: true as const, principal, jti: claims.jti, expiresAt: ((claims.exp as number) + CLOCK_SKEW_SECONDS) * 1000, bodyDigest: claims.bd };
  if (request.audience !== 'agent' || principal.kind !== 'user' || issuer !== 'gateway') return checked;
  // The agent cannot check the proofs (each is for another service), only that there is one for each.
  const proofs = opened.format === 'v1' ? handedOn(header) : proofsIn(claims.prf);
  return proofs ? { ...checked, proofs } : { ok: false, reason: 'no proofs' };
}

/** Whether `issuer` tagged an opened text for this part (`keys` being TicketKeys) or signed it. */
function sealedBy(opened: OpenedText, issuer: Signer, keys: TrustedKeys | TicketKeys): boolean {
  if (opened.format === 'v1') return signedBy(opened, (isTicketKeys(keys) ? keys.trusted : keys).get(issuer) ?? []);
  return isTicketKeys(keys) && taggedUnder(opened, sharedKeys(keys.key, keys.trusted).with(issuer));
}

/** Signed, the gateway's ticket to the agent is itself the proof for every service. */
const handedOn = (ticket: string): Proofs => ({ access: ticket, issues: ticket, statistics: ticket, notifications: ticket });

/** A tagged ticket's proofs: a text for each service the agent calls, or null. */
function proofsIn(prf: unknown): Proofs | null {
  const proofs = prf as Record<string, unknown> | null;
  return typeof proofs === 'object' && proofs !== null && AGENT_CALLS.every((service) => typeof proofs[service] === 'string') ? (proofs as Proofs) : null;
}

/** Issued no later than now (give or take the skew), unexpired, and never made to live longer than `ttl` seconds. */
function timingProblem(claims: { iat?: unknown; exp?: unknown }, now: number, ttl = TICKET_TTL_SECONDS): string | null {
  const { iat, exp } = claims;
  if (!Number.isSafeInteger(iat) || !Number.isSafeInteger(exp)) return 'no lifetime';
  const seconds = now / 1000;
  if ((iat as number) > seconds + CLOCK_SKEW_SECONDS) return 'issued in the future';
  if ((exp as number) - (iat as number) > ttl || (exp as number) < (iat as number)) return 'lifetime too long';
  if ((exp as number) <= seconds - CLOCK_SKEW_SECONDS) return 'expired';
  return null;
}

function principalOf(opened: OpenedText, keys: TrustedKeys | TicketKeys, audience: Signer, now: number): Principal | null {
  const claims = opened.payload;
  const issuer = claims.iss as Signer;
  if (claims.act !== undefined) {
    // The agent, for the user the gateway's proof names.
    if (issuer !== 'agent' || claims.sub !== undefined || claims.vch !== undefined) return null;
    return provenUser(claims.act, keys, audience, now);
  }
  if (claims.sub !== undefined || claims.vch !== undefined) return issuer === 'gateway' ? vouchedUser(opened, keys, now) : null;
  return { kind: 'service', service: issuer };
}

/**
 * The user of the proof the agent brought to `audience`: tagged, the gateway's proof for
 * this very service; signed, the gateway's ticket to the agent.
 */
function provenUser(act: unknown, keys: TrustedKeys | TicketKeys, audience: Signer, now: number): UserPrincipal | null {
  const opened = openUnverified(act, MAX_HEADER_LENGTH);
  if (!opened || !sealedBy(opened, 'gateway', keys)) return null;
  const proof = opened.payload;
  if (proof.iss !== 'gateway' || timingProblem(proof, now)) return null;
  const tagged = opened.format === 'm1';
  const meant = tagged ? proof.use === 'proof' && proof.aud === audience : proof.use === 'ticket' && proof.aud === 'agent';
  return meant ? vouchedUser(opened, keys, now) : null;
}

/**
 * The user a text sealed by the gateway names. Signed, its own `sub`: the signature is the
 * gateway's. Tagged, the gateway's vouch (`vch`) alone: the other part of the hop holds
 * the tag's key too, so a bare `sub` could be anyone's word.
 */
function vouchedUser(opened: OpenedText, keys: TrustedKeys | TicketKeys, now: number): UserPrincipal | null {
  const { sub, vch } = opened.payload;
  if (opened.format === 'v1') return vch === undefined && isUserPrincipal(sub) ? sub : null;
  return sub === undefined ? vouchReaderOf(isTicketKeys(keys) ? keys.trusted : keys).read(vch, now) : null;
}

/** What a service remembers of a vouch it verified. */
interface VerifiedVouch {
  sub: UserPrincipal;
  iat: number;
  exp: number;
}

export interface VouchReader {
  /** The user `text` vouches for, if the gateway signed it as a vouch and it is good at `now` (ms); else null. */
  read(text: unknown, now: number): UserPrincipal | null;
  /** Signatures verified so far (a remembered vouch costs none). */
  readonly verifications: number;
  /** Vouches remembered now. */
  readonly size: number;
}

/**
 * Reads the gateway's vouches with the gateway's keys in `trusted`: each distinct vouch's
 * signature is verified once (0.1 ms), then it is remembered by its exact text until it
 * expires, at most `maxEntries` of them, oldest dropped first. Only vouches that verified
 * are remembered, so what fills the memory is what the gateway signed.
 */
export function vouchReader(trusted: TrustedKeys, maxEntries = VOUCH_MEMO_MAX): VouchReader {
  const memo = new Map<string, VerifiedVouch>();
  let verifications = 0;
  const verified = (text: string): VerifiedVouch | null => {
    verifications++;
    const payload = verifiedPayload(text, 'gateway', trusted, MAX_VOUCH_LENGTH);
    if (!payload || payload.use !== 'vouch' || payload.iss !== 'gateway' || !isUserPrincipal(payload.sub)) return null;
    const { iat, exp } = payload;
    return Number.isSafeInteger(iat) && Number.isSafeInteger(exp) ? { sub: payload.sub, iat: iat as number, exp: exp as number } : null;
  };
  const remembered = (text: string, now: number): VerifiedVouch | null => {
    const vouch = verified(text);
    // Only a vouch good now is kept: an expired or overlong one is refused each time it comes.
    if (!vouch || timingProblem(vouch, now, VOUCH_TTL_SECONDS)) return null;
    memo.set(text, vouch);
    forgetOldest(memo, now, maxEntries);
    return vouch;
  };
  return {
    read(text, now) {
      if (typeof text !== 'string' || text.length > MAX_VOUCH_LENGTH) return null;
      const vouch = memo.get(text) ?? remembered(text, now);
      return vouch && !timingProblem(vouch, now, VOUCH_TTL_SECONDS) ? vouch.sub : null;
    },
    get verifications() {
      return verifications;
    },
    get size() {
      return memo.size;
    },
  };
}

const vouchReaders = new WeakMap<TrustedKeys, VouchReader>();

/** The vouch reader of the process for `trusted` (config's InternalKeys are made once): tickets are checked with it. */
export function vouchReaderOf(trusted: TrustedKeys): VouchReader {
  let reader = vouchReaders.get(trusted);
  if (!reader) vouchReaders.set(trusted, (reader = vouchReader(trusted)));
  return reader;
}

function isUserPrincipal(value: unknown): value is UserPrincipal {
  const v = value as Record<string, unknown> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    v.kind === 'user' &&
    Number.isSafeInteger(v.userId) &&
    Number.isSafeInteger(v.workspaceId) &&
    Number.isSafeInteger(v.tokenId) &&
    (v.workspaceRole === 'admin' || v.workspaceRole === 'member') &&
    Object.keys(v).length === 5
  );
}
