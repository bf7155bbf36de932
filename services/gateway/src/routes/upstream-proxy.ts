import http from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { createProxyMiddleware, debugProxyErrorsPlugin, proxyEventsPlugin } from 'http-proxy-middleware';
import { logOf, sendProblem, upstreamUnavailable } from '@tracker/kit';
import type { Upstream } from '../domain/route-table';

/** Sockets idle longer than this are closed by the gateway, before the services' 65 s keep-alive does. */
const AGENT_IDLE_MS = 30_000;

export type Forward = (req: Request, res: Response, next: NextFunction) => Promise<void>;

/**
 * Forwards a request to `upstream` as it is (headers already rewritten by the route),
 * with the body read beforehand (res.locals.body). A service that is down or does not
 * answer within `timeoutMs` is 503 (statistics: statistics_unavailable). `web` is the web
 * pages' service (web.route.ts), which owns no path of the API.
 */
export function proxyTo(upstream: Upstream | 'web', target: string, timeoutMs: number): Forward {
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
      error: (err, _req, res) => {
        if (!('setHeader' in res)) return;
        const response = res as unknown as Response;
        logOf(response).warn({ upstream, err: (err as Error).message }, 'upstream unavailable');
        if (response.headersSent) {
          response.destroy();
          return;
        }
        sendProblem(response, upstreamUnavailable(upstream));
      },
    },
  });
}
