import type { NextFunction, Request, Response, Router } from 'express';
import type { GatewayConfig } from '../config';
import { admit, type ClientsInFlight } from './admission';
import { proxyTo } from './upstream-proxy';

/** The paths of the API, the agent tool interface and sign-in (in any case, as express mounts them): never the web pages'. */
const NOT_PAGES = /^\/(api|mcp|auth)(\/|$)/i;

/** The metrics label of every answer of the web pages: one, whatever path was asked for. */
export const WEB_ROUTE = 'web';

/**
 * The web pages (services/web): every GET and HEAD that is not /api/*, /mcp or /auth/*
 * goes to the web service, which answers a page, an asset, or 404 (its not-found page
 * for a browser). No token, cookie or internal header is forwarded: the pages' files are
 * the same for everyone. Other methods on these paths stay 404 here. Mounted last, after
 * the routes it must not shadow.
 */
export function webRoutes(router: Router, config: GatewayConfig, inFlight: ClientsInFlight): void {
  const forward = proxyTo('web', config.upstreams.web, config.upstreamTimeoutMs);

  router.use(async (req: Request, res: Response, next: NextFunction) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || NOT_PAGES.test(req.path)) return next();
    res.locals.route = WEB_ROUTE;
    admit(req, res, config, inFlight);
    delete req.headers.authorization;
    delete req.headers.cookie;
    req.headers['x-request-id'] = res.locals.requestId;
    req.url = req.originalUrl;
    await forward(req, res, next);
  });
}
