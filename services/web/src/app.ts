import type { NextFunction, Request, Response } from 'express';
import { createBaseApp, createLogger, createMetrics, finishApp, type Logger, type Metrics } from '@tracker/kit';
import type { WebConfig } from './config';
import { isPage } from './pages';
import { chooseEncoding, loadBuiltApp, type StaticFile } from './static-files';

/**
 * What every answer of the web service carries. Scripts and styles only from this origin
 * (no inline script, no eval), calls only to this origin (the gateway: /auth and /api/v1),
 * never framed; no referrer leaves a page.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=()',
};

export const IMMUTABLE = 'public, max-age=31536000, immutable';

export interface WebService {
  app: ReturnType<typeof createBaseApp>;
  logger: Logger;
  metrics: Metrics;
  close: () => Promise<void>;
}

/**
 * The web app's server: page paths (src/pages.ts) are answered with the app's
 * index.html, hashed assets with a year's immutable caching, and any other path with 404:
 * the app's own not-found page to a browser asking for HTML, problem+json otherwise. Only
 * GET and HEAD; everything is sent brotli- or gzip-compressed when the client takes it
 * (precompressed at build time). No cookie or token is ever read here.
 */
export function createWebService(config: WebConfig, options: { isShuttingDown?: () => boolean } = {}): WebService {
  const logger = createLogger('web', config.log.level);
  const metrics = createMetrics('web');
  const built = loadBuiltApp(config.staticDir);
  const app = createBaseApp({ name: 'web', logger, metrics, isShuttingDown: options.isShuttingDown });

  app.use((req: Request, res: Response, next: NextFunction) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const asset = built.assets.get(req.path);
    if (asset) {
      res.locals.route = 'asset';
      return send(req, res, 200, asset);
    }
    if (isPage(req.path)) {
      res.locals.route = 'page';
      return send(req, res, 200, built.index);
    }
    if (/text\/html/i.test(req.header('accept') ?? '')) {
      // The app draws its not-found page for a path it has no page for.
      res.locals.route = 'unmatched';
      return send(req, res, 404, built.index);
    }
    next();
  });
  finishApp(app);
  return { app, logger, metrics, close: async () => {} };
}

function send(req: Request, res: Response, status: number, file: StaticFile): void {
  const encoding = chooseEncoding(req.header('accept-encoding'), file);
  const body = encoding ? file[encoding]! : file.identity;
  res.status(status);
  res.setHeader('Content-Type', file.type);
  res.setHeader('Content-Length', String(body.length));
  res.setHeader('Vary', 'Accept-Encoding');
  if (encoding) res.setHeader('Content-Encoding', encoding);
  // Hashed assets never change; the HTML always comes fresh (createBaseApp's no-store).
  if (file.immutable && status === 200) res.setHeader('Cache-Control', IMMUTABLE);
  res.end(req.method === 'HEAD' ? undefined : body);
}
