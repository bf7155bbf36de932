import { createHash, randomBytes } from 'node:crypto';
import { isSigner, macPayload, macVerifiedPayload, sharedKeys, signPayload, verifiedPayload, type Signer, type SigningKey, type TrustedKeys } from './signing';

/**
 * Every call to a service carries a ticket in this header: who is calling, vouched for by
 * the part that issued it (signing.ts), and bound to the one request it was made
 * for: its method, path and query, a digest of its body, the service it is addressed to
 * (`aud`), when it was issued and a unique id. Services verify all of it and accept each
 * ticket once (seen-tickets.ts), so a captured header opens no other route, method, body or
 * service, and cannot be replayed.
 *
 * A ticket is tagged (HMAC-SHA256, `m1.`) under the key its issuer shares with the
 * service it is addressed to, which only those two parts can derive (signing.ts
 * sharedKeys), and that service alone checks it. Tickets to the agent are signed
 * (Ed25519, `v1.`) instead: the agent hands the gateway's ticket on as its proof (`act`)
 * to services that do not hold the key the gateway shares with the agent. A signed ticket
 * is accepted everywhere (tests and the bench make them with a signing key alone).
 *
 * - A user, as the gateway authenticated them: issued by the gateway alone.
 * - A user through the agent: issued by the agent, carrying the gateway's signed ticket for
 *   the user's /mcp request (`act`), so the agent can act only for a user calling it now.
 * - A service calling another service's /internal API: issued by itself; what it may
 *   call there is the callee's list (ServiceAppOptions.internalCallers).
 */
export const PRINCIPAL_HEADER = 'x-tracker-principal';

/** Headers only the gateway may set; it strips any copy a client sends. */
export const INTERNAL_HEADERS = [PRINCIPAL_HEADER] as const;

export type WorkspaceRole = 'admin' | 'member';

export type Principal =
  | { kind: 'user'; userId: number; workspaceId: number; workspaceRole: WorkspaceRole; tokenId: number }
  | { kind: 'service'; service: Signer };

export type UserPrincipal = Extract<Principal, { kind: 'user' }>;

/** How long a ticket is good for: the hop it is made for takes milliseconds. */
export const TICKET_TTL_SECONDS = 15;
/** Clocks may differ this much; a ticket issued further in the future is refused. */
export const CLOCK_SKEW_SECONDS = 5;
const MAX_HEADER_LENGTH = 4096;

export interface TicketRequest {
  audience: Signer;
  method: string;
  /** Path and query exactly as sent. */
  path: string;
  body?: Uint8Array;
  /** The user the call is for; unset for a service's own call. */
  user?: UserPrincipal;
  /** The agent's proof that `user` is calling it now: the gateway's ticket for that /mcp request. */
  onBehalfOf?: string;
}

export const bodyDigest = (body: Uint8Array | undefined) => createHash('sha256').update(body ?? new Uint8Array()).digest('base64url');

/** A part's own key and the public keys it trusts (config's InternalKeys): what tagging and checking tickets need. */
export interface TicketKeys {
  key: SigningKey;
  trusted: TrustedKeys;
  /** false: sign every ticket (INTERNAL_TICKETS=signed, during a rolling upgrade from signed-only parts). */
  tagTickets?: boolean;
}

const isTicketKeys = (keys: SigningKey | TicketKeys | TrustedKeys): keys is TicketKeys => 'trusted' in keys && 'key' in keys;

/** The receiver of a ticket to the agent passes it on as proof, so those are signed; the others tagged (above). */
const signedFor = (audience: Signer) => audience === 'agent';

/** A ticket for one request: tagged with `keys` (the services), signed with a bare signing key (tests, bench). */
export function issueTicket(keys: SigningKey | TicketKeys, request: TicketRequest, now = Date.now()): string {
  const key = isTicketKeys(keys) ? keys.key : keys;
  const iat = Math.floor(now / 1000);
  const claims = {
    use: 'ticket',
    iss: key.signer,
    aud: request.audience,
    ...(request.user ? { sub: request.user } : {}),
    ...(request.onBehalfOf ? { act: request.onBehalfOf } : {}),
    m: request.method.toUpperCase(),
    p: request.path,
    bd: bodyDigest(request.body),
    iat,
    exp: iat + TICKET_TTL_SECONDS,
    jti: randomBytes(12).toString('base64url'),
  };
  return isTicketKeys(keys) && keys.tagTickets !== false && !signedFor(request.audience) ? macPayload(sharedKeys(keys.key, keys.trusted).with(request.audience), claims) : signPayload(key, claims);
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
  | { ok: true; principal: Principal; jti: string; expiresAt: number; bodyDigest: string }
  | { ok: false; reason: string };

/**
 * Verifies a ticket against the request it arrived with: a tagged one with the keys this
 * service shares (`keys` being TicketKeys), a signed one with the public keys trusted.
 * Replays are not detected here (that needs memory shared by the service's replicas:
 * seen-tickets.ts).
 */
export function checkTicket(header: string | undefined, keys: TrustedKeys | TicketKeys, request: ReceivedRequest, now = Date.now()): TicketCheck {
  if (!header || header.length > MAX_HEADER_LENGTH) return { ok: false, reason: 'no ticket' };
  const trusted = isTicketKeys(keys) ? keys.trusted : keys;
  const issuer = claimedIssuer(header);
  const claims = !issuer
    ? null
    : header.startsWith('m1.')
      ? isTicketKeys(keys) && !signedFor(request.audience)
        ? macVerifiedPayload(header, sharedKeys(keys.key, keys.trusted).with(issuer), MAX_HEADER_LENGTH)
        : null
      : verifiedPayload(header, issuer, trusted, MAX_HEADER_LENGTH);
  // Signed texts of other kinds (cache entries, events) never pass for a ticket.
  if (!claims || claims.use !== 'ticket' || claims.iss !== issuer) return { ok: false, reason: 'bad signature' };
  const timing = timingProblem(claims, now);
  if (timing) return { ok: false, reason: timing };
  if (claims.aud !== request.audience) return { ok: false, reason: 'addressed to another service' };
  if (typeof claims.bd !== 'string' || claims.m !== request.method || claims.p !== request.path || (request.bodyDigest !== undefined && claims.bd !== request.bodyDigest)) {
    return { ok: false, reason: 'made for another request' };
  }
  if (typeof claims.jti !== 'string' || !/^[A-Za-z0-9_-]{16,64}$/.test(claims.jti)) return { ok: false, reason: 'no ticket id' };
  const principal = principalOf(claims, trusted, now);
  if (!principal) return { ok: false, reason: 'not a principal its signer may vouch for' };
  return { ok: true, principal, jti: claims.jti, expiresAt: ((claims.exp as number) + CLOCK_SKEW_SECONDS) * 1000, bodyDigest: claims.bd };
}

/** The issuer a ticket names, unverified: only to choose whose keys to try (verified after). */
function claimedIssuer(header: string): Signer | null {
  try {
    const iss = JSON.parse(Buffer.from(header.split('.')[1] ?? '', 'base64url').toString('utf8'))?.iss;
    return isSigner(iss) ? iss : null;
  } catch {
    return null;
  }
}

/** Issued no later than now (give or take the skew), unexpired, and never made to live longer than the TTL. */
function timingProblem(claims: Record<string, unknown>, now: number): string | null {
  const { iat, exp } = claims;
  if (!Number.isSafeInteger(iat) || !Number.isSafeInteger(exp)) return 'no lifetime';
  const seconds = now / 1000;
  if ((iat as number) > seconds + CLOCK_SKEW_SECONDS) return 'issued in the future';
  if ((exp as number) - (iat as number) > TICKET_TTL_SECONDS || (exp as number) < (iat as number)) return 'lifetime too long';
  if ((exp as number) <= seconds - CLOCK_SKEW_SECONDS) return 'expired';
  return null;
}

function principalOf(claims: Record<string, unknown>, trusted: TrustedKeys, now: number): Principal | null {
  const issuer = claims.iss as Signer;
  if (claims.act !== undefined) {
    // The agent, for the user whose /mcp request the gateway signed.
    if (issuer !== 'agent' || claims.sub !== undefined) return null;
    const gateway = verifiedPayload(claims.act, 'gateway', trusted, MAX_HEADER_LENGTH);
    if (!gateway || gateway.use !== 'ticket' || gateway.iss !== 'gateway' || gateway.aud !== 'agent' || timingProblem(gateway, now)) return null;
    return isUserPrincipal(gateway.sub) ? gateway.sub : null;
  }
  if (claims.sub !== undefined) return issuer === 'gateway' && isUserPrincipal(claims.sub) ? claims.sub : null;
  return { kind: 'service', service: issuer };
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
