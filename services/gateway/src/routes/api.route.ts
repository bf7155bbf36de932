import http from 'node:http';
import type { NextFunction, Request, Response, Router } from 'express';
import { createProxyMiddleware, debugProxyErrorsPlugin, proxyEventsPlugin } from 'http-proxy-middleware';
import { AppError, hashToken, INTERNAL_HEADERS, logOf, PRINCIPAL_HEADER, sendProblem, signPrincipal, upstreamUnavailable, type UserPrincipal } from '@tracker/kit';
import type { GatewayConfig } from '../config';
import type { AccessClient } from '../data-access/access-client';
import type { AuthStore } from '../data-access/auth-store';
import { readBearer } from '../domain/bearer';
import { windowOf } from '../domain/rate-limit';
import { routeTemplate, upstreamFor, type Upstream } from '../domain/route-table';

export const BODY_LIMIT_BYTES = 1024 * 1024;
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
 * Every /api/v1 and /mcp request: authenticate the bearer token, apply the rate
 * limit, choose the owning service, and forward with a signed principal in place of
 * the token. Bodies are streamed, never parsed here. The agent tool interface (/mcp)
 * passes the same checks as the REST API before anything MCP happens.
 */
export function apiRoutes(router: Router, deps: ApiDeps): void {
  const proxies = {
    access: proxyTo('access', deps.config.upstreams.access, deps.config.upstreamTimeoutMs),
    issues: proxyTo('issues', deps.config.upstreams.issues, deps.config.upstreamTimeoutMs),
    statistics: proxyTo('statistics', deps.config.upstreams.statistics, deps.config.upstreamTimeoutMs),
    agent: proxyTo('agent', deps.config.upstreams.agent, deps.config.upstreamTimeoutMs),
  };

  router.use(['/api/v1', '/mcp'], async (req: Request, res: Response, next: NextFunction) => {
    for (const header of INTERNAL_HEADERS) delete req.headers[header];
    // The whole path: under a mount, `/mcp` and `/mcp/` both have req.path `/`.
    const path = req.originalUrl.split('?')[0]!;
    res.locals.route = routeTemplate(path);
    const principal = await authenticate(req, res, deps);
    const upstream = upstreamFor(path);
    if (!upstream) throw new AppError('not_found', `No route for ${req.method} ${path}.`);
    if (Number(req.headers['content-length'] ?? 0) > BODY_LIMIT_BYTES) {
      throw new AppError('payload_too_large', 'The request body is larger than 1 MiB.');
    }
    req.headers[PRINCIPAL_HEADER] = signPrincipal(principal, deps.config.internal.secret);
    req.headers['x-request-id'] = res.locals.requestId;
    delete req.headers.authorization;
    delete req.headers.cookie;
    // Mounted without a path so the proxy sees the original URL.
    req.url = req.originalUrl;
    res.once('finish', () => drainUnreadBody(req));
    await proxies[upstream](req, res, next);
  });
}

/**
 * A service may answer before it has read the whole body (413, an undecodable
 * Content-Encoding). The rest must still be read off the client's connection, or the
 * next request on that keep-alive connection waits behind it until a timeout. A body
 * that goes on past the limit is not worth waiting for: the connection is closed.
 */
function drainUnreadBody(req: Request): void {
  if (req.complete) return;
  let drained = 0;
  req.unpipe();
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > BODY_LIMIT_BYTES) req.socket.destroy();
  });
  req.resume();
}

async function authenticate(req: Request, res: Response, deps: ApiDeps): Promise<UserPrincipal> {
  // Benchmark build only (config refuses it in production): B2 measures auth by skipping it.
  if (deps.config.benchFixedPrincipal) return deps.config.benchFixedPrincipal;
  const bearer = readBearer(req.header('authorization'));
  if ('problem' in bearer) {
    if (bearer.problem === 'missing') throw unauthorized('An Authorization: Bearer token is required.', null);
    if (bearer.problem === 'not_bearer') throw unauthorized('Only Bearer tokens are accepted.', 'invalid_request');
    throw unauthorized('The token is not valid.', 'invalid_token');
  }
  const tokenHash = hashToken(bearer.token);
  const window = windowOf(Date.now());
  const limit = deps.config.rateLimit.perMinute;
  const cached = await deps.store.lookup(tokenHash, window.id, limit > 0);

  let principal = cached.principal;
  if (!principal) principal = await deps.access.resolve(tokenHash, res.locals.requestId);
  if (!principal) throw unauthorized('The token is not valid, revoked, or its owner is deactivated.', 'invalid_token');

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
