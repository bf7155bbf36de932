import http from 'node:http';
import type { Express } from 'express';
import type { Logger } from './logger';

export interface RunningServer {
  server: http.Server;
  port: number;
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
}

/**
 * Upstream keep-alive must outlive the gateway agent's idle sockets, otherwise the
 * gateway reuses a socket the service just closed and the request fails.
 */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export async function serve(app: Express, options: ServeOptions): Promise<RunningServer> {
  const server = http.createServer(app);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
  server.requestTimeout = 30_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  options.logger.info({ port, host: options.host }, 'listening');

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
  return { server, port, shutdown };
}
