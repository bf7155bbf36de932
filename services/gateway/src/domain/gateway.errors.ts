import { AppError } from '@tracker/kit';
import type { BearerProblem } from './bearer';

/** A 401 always names the scheme (and, for a token that was sent, what is wrong with it). */
const unauthorized = (detail: string, error: 'invalid_request' | 'invalid_token' | null) =>
  new AppError('unauthorized', detail, {
    headers: { 'WWW-Authenticate': error ? `Bearer realm="tracker", error="${error}"` : 'Bearer realm="tracker"' },
  });

/** Every refusal the gateway answers itself (a forwarded request is answered by its service). */
export const gatewayErrors = {
  bearerRefused(problem: BearerProblem): AppError {
    if (problem === 'missing') return unauthorized('An Authorization: Bearer token is required.', null);
    if (problem === 'not_bearer') return unauthorized('Only Bearer tokens are accepted.', 'invalid_request');
    return unauthorized('The token is not valid.', 'invalid_token');
  },
  expiredToken: () => unauthorized('The token has expired: make a new one.', 'invalid_token'),
  invalidToken: () => unauthorized('The token is not valid, revoked, or its owner is deactivated.', 'invalid_token'),
  tooManyFailures: (limit: number, retryAfterSeconds: number) =>
    new AppError('rate_limited', `Too many failed authentications from this client: at most ${limit} per minute.`, {
      headers: { 'Retry-After': String(retryAfterSeconds) },
    }),
  tooManyInFlight: (limit: number) =>
    new AppError('rate_limited', `Too many requests in progress from this client: at most ${limit} at once.`, { headers: { 'Retry-After': '1' } }),
  /** `rateLimitHeaders` first: the answer says where the token stands, then when to retry. */
  tooManyRequests: (limit: number, retryAfterSeconds: number, rateLimitHeaders: Record<string, string>) =>
    new AppError('rate_limited', `At most ${limit} requests per minute per token.`, {
      headers: { ...rateLimitHeaders, 'Retry-After': String(retryAfterSeconds) },
    }),
  /** Without the access service no token can be checked: the caller may retry. */
  authenticationUnavailable: () =>
    new AppError('service_unavailable', 'Authentication is temporarily unavailable. Retry later.', { headers: { 'Retry-After': '5' } }),
  noRoute: (method: string, path: string) => new AppError('not_found', `No route for ${method} ${path}.`),
};
