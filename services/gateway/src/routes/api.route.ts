import http from 'node:http';
import type { NextFunction, Request, Response, Router } from 'express';
import { createProxyMiddleware, debugProxyErrorsPlugin, proxyEventsPlugin } from 'http-proxy-middleware';
import { AppError, hashToken, INTERNAL_HEADERS, logOf, PRINCIPAL_HEADER, sendProblem, issueTicket, upstreamUnavailable, type UserPrincipal } from '@tracker/kit';
import type { GatewayConfig } from '../config';
import type { AccessClient } from '../data-access/access-client';
import type { AuthStore } from '../data-access/auth-store';
import { readBearer } from '../domain/bearer';
import { clientAddressOf, windowOf } from '../domain/rate-limit';
import { routeTemplate, upstreamFor, type Upstream } from '../domain/route-table';
import { BODY_LIMIT_BYTES, readRequestBody } from './request-body';

/** Sockets idle longer than this are closed by the gateway, before the services' 65 s keep-alive does. */
const AGENT_IDLE_MS = 30_000;

export interface ApiDeps {
  config: GatewayConfig;
  store: AuthStore;
  access: AccessClient;
}

const unauthorized = (detail: string, error: 'invalid_request' | 'invalid_token' | null) =>
  new AppError('unauthorized', detail, {
    headers: { 'WWW-Authenticate': error ? `Bearer realm="tracker", error="${error}"` : 'Bearer realm="tracker"' },
  });

/**
 * Every /api/v1 and /mcp request: read the whole body, then authenticate the bearer
 * token, apply the rate limits, choose the owning service, and forward the body with a
 * signed principal in place of the token. Bodies are never parsed here. The agent tool
 * interface (/mcp) passes the same checks as the REST API before anything MCP happens.
 */
export function apiRoutes(router: Router, deps: ApiDeps): void {
  const proxies = {
    access: proxyTo('access', deps.config.upstreams.access, deps.config.upstreamTimeoutMs),
    issues: proxyTo('issues', deps.config.upstreams.issues, deps.config.upstreamTimeoutMs),
    statistics: proxyTo('statistics', deps.config.upstreams.statistics, deps.config.upstreamTimeoutMs),
    agent: proxyTo('agent', deps.config.upstreams.agent, deps.config.upstreamTimeoutMs),
  };
  const failures = failedAuthentications(deps);

  router.use(['/api/v1', '/mcp'], async (req: Request, res: Response, next: NextFunction) => {
    for (const header of INTERNAL_HEADERS) delete req.headers[header];
    // The whole path: under a mount, `/mcp` and `/mcp/` both have req.path `/`.
    const path = req.originalUrl.split('?')[0]!;
    res.locals.route = routeTemplate(path);
    res.once('finish', () => drainUnreadBody(req));
    const bearer = readBearer(req.header('authorization'));
    if ('problem' in bearer) throw refusedBearer(bearer.problem);
    const body = await readRequestBody(req, res, deps.config.bodyTimeoutMs);
    // Decided now that the request is complete: a change answered meanwhile holds.
    const principal = await authenticate(bearer.token, req, res, deps, failures);
    const upstream = upstreamFor(path);
    if (!upstream) throw new AppError('not_found', `No route for ${req.method} ${path}.`);
    if (body) {
      res.locals.body = body;
      req.headers['content-length'] = String(body.length);
      delete req.headers['transfer-encoding'];
    }
    // Good for this request only: its method, URL, body and service (principal.ts).
    req.headers[PRINCIPAL_HEADER] = issueTicket(deps.config.internal.key, { audience: upstream, method: req.method, path: req.originalUrl, body: body ?? undefined, user: principal });
    req.headers['x-request-id'] = res.locals.requestId;
    delete req.headers.authorization;
    delete req.headers.cookie;
    // Mounted without a path so the proxy sees the original URL.
    req.url = req.originalUrl;
    await proxies[upstream](req, res, next);
  });
}

/**
 * An answer given before the body was read (401 for a missing token) leaves the rest
 * on the client's connection: it must still be read off, or the next request on that
 * keep-alive connection waits behind it until a timeout. A body that goes on past the
 * limit is not worth waiting for: the connection is closed.
 */
function drainUnreadBody(req: Request): void {
  if (req.complete || req.socket.destroyed) return;
  let drained = 0;
  req.unpipe();
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > BODY_LIMIT_BYTES) req.socket.destroy();
  });
  req.resume();
}

function refusedBearer(problem: 'missing' | 'not_bearer' | 'malformed'): AppError {
  if (problem === 'missing') return unauthorized('An Authorization: Bearer token is required.', null);
  if (problem === 'not_bearer') return unauthorized('Only Bearer tokens are accepted.', 'invalid_request');
  return unauthorized('The token is not valid.', 'invalid_token');
}

/**
 * Failed authentications counted per client address in Redis (shared by every gateway
 * replica). A client past the limit gets 429 for the rest of the minute on every
 * request with a token, remembered in this process too, so a flood costs no Redis
 * round trip and never reaches the access service.
 */
function failedAuthentications(deps: ApiDeps) {
  const limit = deps.config.auth.failuresPerMinute;
  const blockedUntilWindow = new Map<string, number>();
  const refusal = (retryAfterSeconds: number) =>
    new AppError('rate_limited', `Too many failed authentications from this client: at most ${limit} per minute.`, {
      headers: { 'Retry-After': String(retryAfterSeconds) },
    });
  return {
    clientOf: (req: Request) => clientAddressOf(req.headers[deps.config.auth.clientAddressHeader ?? ''], req.socket.remoteAddress, deps.config.auth.clientAddressHeader !== undefined),
    /** Throws 429 when the client is known to be over the limit in this window. */
    refuseIfBlocked(client: string, window: { id: number; retryAfterSeconds: number }, counted: number) {
      if (limit === 0) return;
      if (counted >= limit) {
        if (blockedUntilWindow.size > 10_000) blockedUntilWindow.clear();
        blockedUntilWindow.set(client, window.id);
      }
      if (blockedUntilWindow.get(client) === window.id) throw refusal(window.retryAfterSeconds);
    },
    async record(client: string, windowId: number) {
      if (limit > 0) await deps.store.recordFailure(client, windowId);
    },
  };
}

async function authenticate(token: string, req: Request, res: Response, deps: ApiDeps, failures: ReturnType<typeof failedAuthentications>): Promise<UserPrincipal> {
  const window = windowOf(Date.now());
  const client = failures.clientOf(req);
  failures.refuseIfBlocked(client, window, 0);
  const tokenHash = hashToken(token);
  const limit = deps.config.rateLimit.perMinute;
  const cached = await deps.store.lookup(tokenHash, window.id, limit > 0, client);
  failures.refuseIfBlocked(client, window, cached.failures);

  let principal: UserPrincipal | null = null;
  if (cached.token === 'ask-access') principal = await deps.access.resolve(tokenHash, res.locals.requestId);
  else if (cached.token !== 'unknown-token') principal = cached.token;
  if (!principal) {
    await failures.record(client, window.id);
    throw unauthorized('The token is not valid, revoked, or its owner is deactivated.', 'invalid_token');
  }

  if (limit > 0) {
    res.setHeader('RateLimit-Limit', String(limit));
    if (cached.requests !== null) {
      res.setHeader('RateLimit-Remaining', String(Math.max(0, limit - cached.requests)));
      if (cached.requests > limit) {
        throw new AppError('rate_limited', `At most ${limit} requests per minute per token.`, {
          headers: { 'Retry-After': String(window.retryAfterSeconds) },
        });
      }
    }
  }
  return principal;
}

function proxyTo(upstream: Upstream, target: string, timeoutMs: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1024, timeout: AGENT_IDLE_MS });
  return createProxyMiddleware({
    target,
    agent,
    xfwd: true,
    proxyTimeout: timeoutMs,
    ejectPlugins: true,
    plugins: [debugProxyErrorsPlugin, proxyEventsPlugin],
    on: {
      // The body was read before authenticating: it is written here, and the proxy's
      // pipe of the (ended) request then ends the upstream request.
      proxyReq: (proxyReq, _req, res) => {
        const body = (res as unknown as Response).locals.body as Buffer | undefined;
        if (body) proxyReq.write(body);
      },
      error: (err, req, res) => {
        if (!('setHeader' in res)) return;
        const response = res as unknown as Response;
        logOf(response)?.warn({ upstream, err: (err as Error).message }, 'upstream unavailable');
        if (response.headersSent) {
          response.destroy();
          return;
        }
        sendProblem(response, upstreamUnavailable(upstream));
      },
    },
  });
}
