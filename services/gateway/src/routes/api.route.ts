import type { NextFunction, Request, Response, Router } from 'express';
import { issueTicket, PRINCIPAL_HEADER } from '@tracker/kit';
import type { GatewayConfig } from '../config';
import { authenticate, bearerToken, reauthenticate } from '../domain/authenticate.use-case';
import type { GatewayDeps } from '../domain/deps';
import { gatewayErrors } from '../domain/gateway.errors';
import { routeTemplate, UNAUTHENTICATED_ROUTE, upstreamFor } from '../domain/route-table';
import { admit, type ClientsInFlight } from './admission';
import { lingerOnUnreadBody, readRequestBody } from './request-body';
import { proxyStreamTo, proxyTo, type StreamsInFlight } from './upstream-proxy';

/** The one path answered as a stream (Server-Sent Events), forwarded by proxyStreamTo. */
const EVENT_STREAM_PATH = '/api/v1/events/stream';

/**
 * Every /api/v1 and /mcp request: authenticate the bearer token from the headers alone
 * (domain/authenticate.use-case.ts), then read the whole body and check the token again,
 * choose the owning service, and forward the body with a signed principal in place of the
 * token. A stranger's request costs no body: it is answered first, and what it still sends
 * is read off and dropped, within bounds (lingerOnUnreadBody). Bodies are never parsed
 * here. The agent tool interface (/mcp) passes the same checks as the REST API before
 * anything MCP happens.
 */
export function apiRoutes(router: Router, deps: GatewayDeps, config: GatewayConfig, inFlight: ClientsInFlight): StreamsInFlight {
  const eventStream = proxyStreamTo('notifications', config.upstreams.notifications, config.eventStreamIdleMs);
  const forward = {
    access: proxyTo('access', config.upstreams.access, config.upstreamTimeoutMs),
    issues: proxyTo('issues', config.upstreams.issues, config.upstreamTimeoutMs),
    statistics: proxyTo('statistics', config.upstreams.statistics, config.upstreamTimeoutMs),
    agent: proxyTo('agent', config.upstreams.agent, config.upstreamTimeoutMs),
    notifications: proxyTo('notifications', config.upstreams.notifications, config.upstreamTimeoutMs),
  };

  router.use(['/api/v1', '/mcp'], async (req: Request, res: Response, next: NextFunction) => {
    // Until the caller is known, every answer has one label: no path a stranger makes up becomes a series.
    res.locals.route = UNAUTHENTICATED_ROUTE;
    // As the answer is finishing, before Node would drop the rest of the body unread and uncounted.
    res.once('prefinish', () => lingerOnUnreadBody(req));
    const client = admit(req, res, config, inFlight);

    const token = bearerToken(req.header('authorization'));
    const request = { token, client, requestId: res.locals.requestId as string };
    const authenticated = await authenticate(deps, request);
    for (const [name, value] of Object.entries(authenticated.rateLimitHeaders)) res.setHeader(name, value);
    let principal = authenticated.principal;

    // The whole path: under a mount, `/mcp` and `/mcp/` both have req.path `/`.
    const path = req.originalUrl.split('?')[0]!;
    res.locals.route = routeTemplate(path);
    const upstream = upstreamFor(path);
    if (!upstream) throw gatewayErrors.noRoute(req.method, path);
    const body = await readRequestBody(req, res, config.bodyTimeoutMs);
    if (body) {
      principal = await reauthenticate(deps, request);
      res.locals.body = body;
      req.headers['content-length'] = String(body.length);
      delete req.headers['transfer-encoding'];
    }
    // Good for this request only: its method, URL, body and service (libs/kit principal.ts).
    req.headers[PRINCIPAL_HEADER] = issueTicket(config.internal, { audience: upstream, method: req.method, path: req.originalUrl, body: body ?? undefined, user: principal });
    req.headers['x-request-id'] = res.locals.requestId;
    delete req.headers.authorization;
    delete req.headers.cookie;
    // Mounted without a path so the proxy sees the original URL.
    req.url = req.originalUrl;
    if (req.method === 'GET' && path === EVENT_STREAM_PATH) return eventStream(req, res, next);
    await forward[upstream](req, res, next);
  });
  return eventStream;
}
