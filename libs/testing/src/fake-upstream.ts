import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from './ports';

/** One request as a fake upstream received it, undecoded. */
export interface UpstreamRequest {
  method: string;
  /** The request target as sent: path and query. */
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The body as UTF-8 text ('' when there is none). */
  body: string;
  /** The body's exact bytes. */
  bytes: Buffer;
  /** When the whole request had arrived (ms since the epoch). */
  at: number;
}

/**
 * How a fake upstream answers a request, once the whole of it has arrived and been
 * recorded. What it does with `response` is what the caller gets: an answer, nothing at
 * all (a hanging upstream), a head and part of a body (stuck mid-answer), or
 * `response.socket?.destroy()` (the connection dropped without a word). A handler that
 * throws answers 500 with the error, so the test sees it.
 */
export type UpstreamHandler = (request: UpstreamRequest, response: http.ServerResponse) => unknown;

/** A stand-in for a service a test calls through (access, issues, a webhook receiver, …). */
export interface FakeUpstream {
  url: string;
  port: number;
  /** Every request received, in order; a test may empty it (`requests.length = 0`). */
  requests: UpstreamRequest[];
  /** Connections accepted, whether or not a request came on them. */
  connections: () => number;
  /** Drops every connection, answered or hanging, and stops listening. */
  close: () => Promise<void>;
}

/** An HTTP server on 127.0.0.1 and a random port that records each request and lets `handle` answer it. */
export async function startFakeUpstream(handle: UpstreamHandler): Promise<FakeUpstream> {
  const requests: UpstreamRequest[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      const request: UpstreamRequest = { method: req.method!, url: req.url!, headers: req.headers, body: bytes.toString('utf8'), bytes, at: Date.now() };
      requests.push(request);
      Promise.resolve()
        .then(() => handle(request, res))
        .catch((error: Error) => {
          if (res.headersSent) return void res.destroy();
          res.writeHead(500, { 'content-type': 'text/plain' }).end(`the fake upstream failed: ${error.stack ?? error}`);
        });
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Answers `value` as a service does: JSON (no body when `value` is undefined), with `headers` added. */
export function sendJson(response: http.ServerResponse, status: number, value?: unknown, headers: http.OutgoingHttpHeaders = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(value === undefined ? '' : JSON.stringify(value));
}

/** The URL of a port nobody listens on (it was free a moment ago): a service that is down. */
export const closedPortUrl = async (): Promise<string> => `http://127.0.0.1:${await freePort()}`;
