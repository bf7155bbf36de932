import type { NextFunction, Request, Response, Router } from 'express';
import { AUTH_BODY_LIMIT_BYTES, AUTH_ROUTES } from '@tracker/contracts';
import { CLIENT_HEADER, issueTicket, PRINCIPAL_HEADER } from '@tracker/kit';
import type { GatewayConfig } from '../config';
import { gatewayErrors } from '../domain/gateway.errors';
import { admit, type ClientsInFlight } from './admission';
import { lingerOnUnreadBody, readRequestBody } from './request-body';
import { proxyTo } from './upstream-proxy';

const KNOWN = new Set(AUTH_ROUTES.map((route) => `${route.method} ${route.path}`));

/**
 * /auth/*: people's sign-in and sessions (the access service), for browsers that hold no
 * bearer token yet. Only the decided operations are forwarded, with their cookie, the
 * client's address (what sign-ins are throttled by) and a ticket naming no user; a body
 * is at most 16 KiB. A bearer token is never forwarded here, and /api/v1 never takes the cookie.
 */
export function authRoutes(router: Router, config: GatewayConfig, inFlight: ClientsInFlight): void {
  const forward = proxyTo('access', config.upstreams.access, config.upstreamTimeoutMs);

  router.use('/auth', async (req: Request, res: Response, next: NextFunction) => {
    const path = req.originalUrl.split('?')[0]!;
    const known = KNOWN.has(`${req.method} ${path}`);
    res.locals.route = known ? path : 'unmatched';
    res.once('prefinish', () => lingerOnUnreadBody(req));
    const client = admit(req, res, config, inFlight);
    if (!known) throw gatewayErrors.noRoute(req.method, path);

    const body = await readRequestBody(req, res, config.bodyTimeoutMs, AUTH_BODY_LIMIT_BYTES);
    if (body) {
      res.locals.body = body;
      req.headers['content-length'] = String(body.length);
      delete req.headers['transfer-encoding'];
    }
    req.headers[PRINCIPAL_HEADER] = issueTicket(config.internal, { audience: 'access', method: req.method, path: req.originalUrl, body: body ?? undefined });
    req.headers[CLIENT_HEADER] = client;
    req.headers['x-request-id'] = res.locals.requestId;
    delete req.headers.authorization;
    req.url = req.originalUrl;
    await forward(req, res, next);
  });
}
