import { UpstreamUnavailableError, type UserPrincipal } from '@tracker/kit';
import { hashToken } from '@tracker/authz';
import { failureLimitReached, tokenRateLimit } from './authenticate.rules';
import { readBearer } from './bearer';
import type { CachedToken, GatewayDeps } from './deps';
import { gatewayErrors } from './gateway.errors';
import { windowOf } from './rate-limit';

/**
 * Step one, from the headers alone, before the body is read: the bearer token, or 401
 * (a request without one costs nothing more).
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
 * Step two, once the request is complete (a change answered meanwhile holds): the
 * token's principal, from the signed Redis cache or else the access service.
 *
 * - A client past the failed-authentication limit gets 429 for the rest of the minute on
 *   every request with a token. Counted in Redis (shared by every gateway replica) and
 *   remembered in this process, so a flood costs no Redis round trip and never reaches
 *   the access service.
 * - An unknown or revoked token, or a deactivated owner: 401, counted as a failure.
 * - A token past its requests per minute: 429 with Retry-After (the rest of the window).
 * - The access service away when it had to be asked: 503.
 */
export async function authenticate(deps: GatewayDeps, request: AuthenticateRequest): Promise<Authenticated> {
  const window = windowOf(deps.clock().getTime());
  const refuseIfBlocked = (failures: number) => {
    if (deps.limits.failuresPerClient === 0) return;
    if (failureLimitReached(failures, deps.limits.failuresPerClient)) deps.blockedClients.block(request.client, window.id);
    if (deps.blockedClients.isBlocked(request.client, window.id)) throw gatewayErrors.tooManyFailures(deps.limits.failuresPerClient, window.retryAfterSeconds);
  };

  refuseIfBlocked(0);
  const tokenHash = hashToken(request.token);
  const limit = deps.limits.requestsPerToken;
  const cached = await deps.store.lookup(tokenHash, window.id, limit > 0, request.client);
  refuseIfBlocked(cached.failures);

  const principal = await principalOf(deps, tokenHash, cached.token, request.requestId);
  if (!principal) {
    if (deps.limits.failuresPerClient > 0) await deps.store.recordFailure(request.client, window.id);
    throw gatewayErrors.invalidToken();
  }

  const rateLimit = tokenRateLimit(limit, cached.requests);
  if (rateLimit.over) throw gatewayErrors.tooManyRequests(limit, window.retryAfterSeconds, rateLimit.headers);
  return { principal, rateLimitHeaders: rateLimit.headers };
}

async function principalOf(deps: GatewayDeps, tokenHash: string, cached: CachedToken, requestId: string): Promise<UserPrincipal | null> {
  if (cached === 'unknown-token') return null;
  if (cached !== 'ask-access') return cached;
  try {
    return await deps.access.resolve(tokenHash, requestId);
  } catch (err) {
    if (err instanceof UpstreamUnavailableError) throw gatewayErrors.authenticationUnavailable();
    throw err;
  }
}
