import http from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { createProxyMiddleware, debugProxyErrorsPlugin, proxyEventsPlugin, type Options } from 'http-proxy-middleware';
import { logOf, markStreaming, sendProblem, upstreamUnavailable } from '@tracker/kit';
import type { Upstream } from '../domain/route-table';
import { leaveInFlight } from './admission';

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
  return createProxyMiddleware(proxyOptions(upstream, target, agent, timeoutMs, 'destroy'));
}

/**
 * What both proxies share: the body read before authenticating is written upstream, and a
 * service that is down (or silent past `timeoutMs`) is 503 before the answer began; after,
 * the answer is cut (`destroy`, a request: the client sees it incomplete) or ended
 * (`end`, a stream: the client reconnects).
 */
function proxyOptions(upstream: Upstream | 'web', target: string, agent: http.Agent, timeoutMs: number, once: 'destroy' | 'end'): Options {
  return {
    target,
    agent,
    xfwd: true,
    proxyTimeout: timeoutMs,
    ejectPlugins: true,
    plugins: [debugProxyErrorsPlugin, proxyEventsPlugin],
    on: {
      proxyReq: writeReadBody,
      error: (err, _req, res) => {
        if (!('setHeader' in res)) return;
        const response = res as unknown as Response;
        logOf(response).warn({ upstream, err: (err as Error).message }, 'upstream unavailable');
        if (response.headersSent) {
          if (once === 'destroy') response.destroy();
          else response.end();
          return;
        }
        sendProblem(response, upstreamUnavailable(upstream));
      },
    },
  };
}

/**
 * The body was read before authenticating: it is written here, and the proxy's pipe of
 * the (ended) request then ends the upstream request.
 */
function writeReadBody(proxyReq: http.ClientRequest, _req: http.IncomingMessage, res: http.ServerResponse): void {
  const body = (res as unknown as Response).locals.body as Buffer | undefined;
  if (body) proxyReq.write(body);
}

/** The live streams the gateway is forwarding, to end at shutdown (a stream never drains by itself). */
export interface StreamsInFlight {
  /** Ends every stream forwarded now (its client reconnects, to another gateway) and closes its upstream. */
  endAll: () => void;
}

/**
 * Forwards the live event stream (GET /api/v1/events/stream): as proxyTo, but without the
 * upstream timeout of a request (a stream lasts minutes), cut only when the upstream is
 * silent for `idleMs`; the answer is passed on as it comes, never buffered nor compressed
 * (nothing in the gateway compresses). Once the upstream answers a stream, the client's
 * place in flight is given back and the access log and metrics treat the answer as a
 * stream (libs/kit markStreaming). A client that leaves closes the upstream request, and
 * with it the service's stream and its slot.
 */
export function proxyStreamTo(upstream: Upstream, target: string, idleMs: number): Forward & StreamsInFlight {
  // Sockets of their own, with no idle limit but the proxy's: a stream's socket is silent between keep-alives.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16_384 });
  const open = new Set<() => void>();
  // Set by endAll: a stream whose upstream answers after it is ended at once, as the streams open then were.
  let closing = false;
  const options = proxyOptions(upstream, target, agent, idleMs, 'end');
  const forward = createProxyMiddleware({
    ...options,
    on: {
      ...options.on,
      proxyRes: (proxyRes, _req, res) => {
        const response = res as unknown as Response;
        if (!String(proxyRes.headers['content-type'] ?? '').startsWith('text/event-stream')) return;
        markStreaming(response);
        leaveInFlight(response);
        const end = () => {
          proxyRes.unpipe(response);
          proxyRes.destroy();
          response.end();
        };
        open.add(end);
        response.once('close', () => open.delete(end));
        // After the proxy wrote the answer's head: the client sees the stream begin and end, and reconnects.
        if (closing) process.nextTick(end);
      },
    },
  });
  return Object.assign(forward, {
    endAll: () => {
      closing = true;
      for (const end of [...open]) end();
    },
  });
}
