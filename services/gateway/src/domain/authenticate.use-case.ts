import { UpstreamUnavailableError, type UserPrincipal } from '@tracker/kit';
import { hashToken } from '@tracker/authz';
import { failureLimitReached, tokenRateLimit } from './authenticate.rules';
import { readBearer } from './bearer';
import type { GatewayDeps } from './deps';
import { gatewayErrors } from './gateway.errors';
import { windowOf } from './rate-limit';

/**
 * Step one, from the headers alone: the bearer token, or 401 (a request without one costs
 * nothing more).
 */
export function bearerToken(authorization: string | undefined): string {
  const bearer = readBearer(authorization);
  if ('problem' in bearer) throw gatewayErrors.bearerRefused(bearer.problem);
  return bearer.token;
}

export interface AuthenticateRequest {
  token: string;
  /** The address failed authentications are counted against (rate-limit.ts: clientAddressOf). */
  client: string;
  requestId: string;
}

export interface Authenticated {
  principal: UserPrincipal;
  /** RateLimit-* headers for the answer. */
  rateLimitHeaders: Record<string, string>;
}

/**
 * Step two, from the headers alone, before a byte of the body is read: the token's
 * principal, from the signed Redis cache or else the access service. A stranger's request
 * is refused before its body costs the gateway memory or time.
 *
 * - A token the cache or the access service knows as valid is never refused for its
 *   client's failures: behind a proxy many people share one address, and a flood of made-up
 *   tokens from it must not lock them out.
 * - A token past its expiry (or its session's end): 401 saying so, not counted as a failure.
 * - An unknown or revoked token, or a deactivated owner: 401, counted as a failure against
 *   the client. Past the limit of failures in a minute, the client is blocked for the rest
 *   of that minute (counted in Redis, shared by every gateway replica, and remembered in
 *   this process): its unknown tokens are 429, and tokens the cache cannot vouch for are
 *   resolved by the access service only a few at a time (limits.resolvesForBlockedClients),
 *   so a flood never reaches it in full.
 * - A token past its requests per minute: 429 with Retry-After (the rest of the window).
 * - The access service away when it had to be asked: 503.
 */
export async function authenticate(deps: GatewayDeps, request: AuthenticateRequest): Promise<Authenticated> {
  const window = windowOf(deps.clock().getTime());
  const tokenHash = hashToken(request.token);
  const limit = deps.limits.requestsPerToken;
  const cached = await deps.store.lookup(tokenHash, window.id, limit > 0, request.client);
  const blocked = isBlocked(deps, request.client, window.id, cached.failures);

  let principal: UserPrincipal | null | 'expired';
  if (cached.token === 'unknown-token') principal = null;
  else if (cached.token !== 'ask-access') principal = cached.token;
  else if (!blocked) principal = await resolve(deps, tokenHash, request.requestId);
  else {
    if (!deps.blockedClientResolves.tryTake()) throw gatewayErrors.tooManyFailures(deps.limits.failuresPerClient, window.retryAfterSeconds);
    try {
      principal = await resolve(deps, tokenHash, request.requestId);
    } finally {
      deps.blockedClientResolves.release();
    }
  }
  // A real token past its end is not a stranger's guess: told so, and not counted.
  if (principal === 'expired') throw gatewayErrors.expiredToken();
  if (!principal) {
    if (deps.limits.failuresPerClient > 0) await deps.store.recordFailure(request.client, window.id);
    if (blocked) throw gatewayErrors.tooManyFailures(deps.limits.failuresPerClient, window.retryAfterSeconds);
    throw gatewayErrors.invalidToken();
  }

  // The lookup counts a request only for a token the cache holds (a made-up one leaves no counter behind).
  const requests = cached.requests ?? (limit > 0 && cached.token === 'ask-access' ? await deps.store.countRequest(tokenHash, window.id) : null);
  const rateLimit = tokenRateLimit(limit, requests);
  if (rateLimit.over) throw gatewayErrors.tooManyRequests(limit, window.retryAfterSeconds, rateLimit.headers);
  deps.tokenUses.used(principal.tokenId);
  return { principal, rateLimitHeaders: rateLimit.headers };
}

/**
 * Step three, once a request's body has arrived whole: the token's principal now, so a
 * revoke, a deactivation or a role change answered while the body was on its way holds
 * for this request (rights are those at write time). Nothing is counted again; a token no
 * longer valid is 401.
 */
export async function reauthenticate(deps: GatewayDeps, request: AuthenticateRequest): Promise<UserPrincipal> {
  const tokenHash = hashToken(request.token);
  const cached = await deps.store.lookup(tokenHash, windowOf(deps.clock().getTime()).id, false, request.client);
  const principal = cached.token === 'ask-access' ? await resolve(deps, tokenHash, request.requestId) : cached.token === 'unknown-token' ? null : cached.token;
  if (principal === 'expired') throw gatewayErrors.expiredToken();
  if (!principal) throw gatewayErrors.invalidToken();
  return principal;
}

/** Whether the client is past its failures in this window (remembered in this process once Redis says so). */
function isBlocked(deps: GatewayDeps, client: string, windowId: number, failures: number): boolean {
  if (deps.limits.failuresPerClient === 0) return false;
  if (failureLimitReached(failures, deps.limits.failuresPerClient)) deps.blockedClients.block(client, windowId);
  return deps.blockedClients.isBlocked(client, windowId);
}

async function resolve(deps: GatewayDeps, tokenHash: string, requestId: string): Promise<UserPrincipal | null | 'expired'> {
  try {
    return await deps.access.resolve(tokenHash, requestId);
  } catch (err) {
    if (err instanceof UpstreamUnavailableError) throw gatewayErrors.authenticationUnavailable();
    throw err;
  }
}
