import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import { AppError, problemBody, type ErrorCode } from './errors';
import { bornWithPrototypesOf, inProgressResponse } from './internals';
import type { Logger } from './logger';
import { serveMetrics, type Metrics, type MetricsServer } from './metrics';

export interface RunningServer {
  server: http.Server;
  port: number;
  /** The /metrics listener's port, when one was asked for. */
  metricsPort?: number;
  /** Stops accepting, drains in-flight requests, then runs the closers. */
  shutdown: () => Promise<void>;
}

export interface ServeOptions {
  port: number;
  host: string;
  logger: Logger;
  graceMs: number;
  /** Resources to close after the last request finished (database, cache, broker). */
  closers?: Array<() => Promise<unknown>>;
  /** Install SIGTERM/SIGINT handlers that shut down and exit the process. */
  handleSignals?: boolean;
  onShutdownStart?: () => void;
  /** Overrides of SERVER_TIMEOUTS (tests use short ones). */
  timeouts?: Partial<ServerTimeouts>;
  metrics?: Metrics;
  /** Serves `metrics` at `/metrics` on this port (0 = any free one); no listener when undefined. */
  metricsPort?: number;
  /** Open connections held at most (config's MAX_CONNECTIONS); past it Node closes new ones at once. */
  maxConnections?: number;
}

export interface ServerTimeouts {
  /** Longest time from a request's first byte to its last header byte. */
  headersMs: number;
  /** Longest time from a request's first byte to its last body byte. */
  requestMs: number;
  /** How often Node looks for requests over those limits. */
  checkIntervalMs: number;
}

/**
 * A client that sends its headers or body byte by byte (slowloris) is cut off with
 * 408 after these times instead of holding a socket forever. Idle keep-alive sockets
 * are not requests in progress, so they are governed by the keep-alive timeout only.
 */
export const SERVER_TIMEOUTS: ServerTimeouts = { headersMs: 10_000, requestMs: 30_000, checkIntervalMs: 1_000 };

/**
 * Upstream keep-alive must outlive the gateway agent's idle sockets, otherwise the
 * gateway reuses a socket the service just closed and the request fails.
 */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export async function serve(app: Express, options: ServeOptions): Promise<RunningServer> {
  const timeouts = { ...SERVER_TIMEOUTS, ...options.timeouts };
  const server = http.createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: timeouts.checkIntervalMs,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      ...bornWithPrototypesOf(app),
    },
    app,
  );
  server.on('clientError', answerClientError);
  if (options.maxConnections !== undefined) server.maxConnections = options.maxConnections;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  options.logger.info({ port, host: options.host }, 'listening');
  let metricsServer: MetricsServer | undefined;
  if (options.metrics && options.metricsPort !== undefined) {
    metricsServer = await serveMetrics(options.metrics, { port: options.metricsPort, host: options.host, logger: options.logger });
  }

  let closing: Promise<void> | undefined;
  const shutdown = () => {
    closing ??= (async () => {
      options.onShutdownStart?.();
      options.logger.info('shutting down: draining requests');
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive sockets become idle as their last request ends; close them as they do.
      server.closeIdleConnections();
      const sweep = setInterval(() => server.closeIdleConnections(), 100);
      const force = setTimeout(() => server.closeAllConnections(), options.graceMs);
      await drained;
      clearInterval(sweep);
      clearTimeout(force);
      for (const close of options.closers ?? []) {
        await close().catch((err: unknown) => options.logger.warn({ err }, 'error while closing a resource'));
      }
      // Last: the final counts stay scrapable while the service drains.
      await metricsServer?.close();
      options.logger.info('stopped');
    })();
    return closing;
  };

  if (options.handleSignals) {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.once(signal, () => {
        shutdown().then(() => process.exit(0), () => process.exit(1));
      });
    }
  }
  return { server, port, metricsPort: metricsServer?.port, shutdown };
}

/** What a service's `main` hands to `runService`: its parts, its config, and what to close on shutdown. */
export interface ServiceToRun {
  service: { app: Express; logger: Logger; metrics: Metrics };
  config: { http: { port: number; host: string; shutdownGraceMs: number; maxConnections?: number }; metrics: { port?: number } };
  /** Closed in this order after the last request finished (consumers and relays first, the pool last). */
  closers: Array<() => Promise<unknown>>;
  /** Runs as shutdown begins, after the readiness probe starts failing. */
  onShutdownStart?: () => void;
}

/** Tells a service whether its process has begun shutting down (readiness then answers 503). */
export interface ServiceLifecycle {
  isShuttingDown: () => boolean;
}

/**
 * Starts one service process, the same way for every service: `start` builds the service
 * (given the lifecycle to pass to it), then it listens with its config, answers SIGTERM and
 * SIGINT by draining and closing, and a failure to start ends the process with status 1.
 */
export function runService(name: string, start: (lifecycle: ServiceLifecycle) => ServiceToRun | Promise<ServiceToRun>): Promise<RunningServer | void> {
  return serveService(start, { handleSignals: true }).catch((err: unknown) => {
    process.stderr.write(`${name} failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}

/** `runService` without the process handling: tests start a service this way and shut it down themselves. */
export async function serveService(
  start: (lifecycle: ServiceLifecycle) => ServiceToRun | Promise<ServiceToRun>,
  options: Pick<ServeOptions, 'handleSignals' | 'timeouts'> = {},
): Promise<RunningServer> {
  let shuttingDown = false;
  const { service, config, closers, onShutdownStart } = await start({ isShuttingDown: () => shuttingDown });
  return serve(service.app, {
    port: config.http.port,
    host: config.http.host,
    logger: service.logger,
    metrics: service.metrics,
    metricsPort: config.metrics.port,
    graceMs: config.http.shutdownGraceMs,
    maxConnections: config.http.maxConnections,
    ...options,
    onShutdownStart: () => {
      shuttingDown = true;
      onShutdownStart?.();
    },
    closers,
  });
}

/** Makes `res` announce `Connection: close`, whatever headers a proxy copies onto it before writing them. */
function closeAfter(res: http.ServerResponse): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => http.ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    res.setHeader('Connection', 'close');
    const headers = args.find((arg, i) => i > 0 && typeof arg === 'object' && arg !== null && !Array.isArray(arg)) as Record<string, unknown> | undefined;
    if (headers) for (const name of Object.keys(headers)) if (name.toLowerCase() === 'connection') headers[name] = 'close';
    return writeHead(...args);
  }) as typeof res.writeHead;
}

const CLIENT_ERRORS: Record<string, { code: ErrorCode; detail: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'request_timeout', detail: 'The request was not received in time.' },
  HPE_HEADER_OVERFLOW: { code: 'headers_too_large', detail: 'The request line and headers are larger than 16 KiB.' },
};

/**
 * A request Node cannot parse or that timed out never reaches express: answer it
 * as problem+json too (Node's default is a bare status line) and close the socket.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const inProgress = inProgressResponse(socket);
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  if (inProgress && inProgress.req.complete && !inProgress.writableFinished) {
    // The bad bytes came after a whole request that is still being answered (a body
    // sent without Content-Length, say). Answering now would hand this error to that
    // request's client as its answer: let the answer go out, as the connection's last.
    if (!inProgress.headersSent) closeAfter(inProgress);
    inProgress.once('finish', () => socket.end());
    return;
  }
  if (inProgress?.headersSent) {
    socket.destroy();
    return;
  }
  const known = CLIENT_ERRORS[error.code ?? ''] ?? { code: 'bad_request' as const, detail: 'The request is not valid HTTP.' };
  const problem = new AppError(known.code, known.detail);
  const body = JSON.stringify(problemBody(problem));
  socket.end(
    `HTTP/1.1 ${problem.status} ${http.STATUS_CODES[problem.status]}\r\n` +
      'Content-Type: application/problem+json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Cache-Control: no-store\r\n' +
      'Connection: close\r\n\r\n' +
      body,
  );
}
