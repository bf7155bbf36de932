import { randomUUID } from 'node:crypto';
import express, { type ErrorRequestHandler, type NextFunction, type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { isDatabaseUnavailable } from './database-errors';
import { replaceAppJson } from './internals';
import { AppError, problemBody } from './errors';
import { dependencyUnavailable, UpstreamUnavailableError } from './internal-client';
import { jsonBodyReader, receivedBodyDigest } from './json-body';
import type { Logger } from './logger';
import { observeHttp, type Metrics } from './metrics';
import { checkTicket, PRINCIPAL_HEADER, type Principal, type Proofs, type TicketKeys, type UserPrincipal } from './principal';
import type { SeenTickets } from './seen-tickets';
import type { Signer, TrustedKeys } from '@tracker/signing';
import { fieldErrors } from './validation';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const READINESS_TIMEOUT_MS = 2000;

export interface BaseAppOptions {
  name: string;
  logger: Logger;
  /** Named dependency checks for /readyz; each must resolve within the timeout. */
  readiness?: Record<string, () => Promise<unknown>>;
  /** Reported by /readyz as not ready once shutdown has begun. */
  isShuttingDown?: () => boolean;
  /** Request rate and latency by route and status (served on METRICS_PORT, never here). */
  metrics?: Metrics;
}

export interface ServiceAppOptions extends BaseAppOptions {
  name: Signer;
  /**
   * What tickets are checked with (principal.ts): the service's own keys (config's
   * InternalKeys) for tagged and signed tickets; public keys alone accept signed ones only.
   */
  keys: TicketKeys | TrustedKeys;
  /** Where accepted tickets are remembered, shared by the replicas (each ticket is good once). */
  seenTickets: SeenTickets;
  /**
   * Who may call each /internal route, as `'METHOD /path/:param'` → callers. A service
   * ticket for a route not listed, or from a caller not named, is 403.
   */
  internalCallers?: Readonly<Record<string, readonly Signer[]>>;
  /** Mounts the service's routes; `userPaths` and /internal already require a valid ticket. */
  routes: (router: Router) => void;
  bodyLimit?: string;
  /** The paths callers reach through the gateway, as a signed user (default /api/v1). */
  userPaths?: string[];
  /**
   * The paths parts of the system call as themselves, with a service ticket checked
   * against internalCallers (default /internal; the access service adds /auth, which the
   * gateway forwards for people who are not signed in yet).
   */
  servicePaths?: string[];
}

/** Builds every service's express app the same way: ids, logs, health, the ticket, bodies (json-body.ts), errors. */
export function createServiceApp(options: ServiceAppOptions): express.Express {
  const app = createBaseApp(options);
  const userPaths = options.userPaths ?? ['/api/v1'];
  const readBody = jsonBodyReader(options.bodyLimit ?? '1mb');
  app.use(userPaths, acceptTicket(options, 'user', readBody));
  app.use(options.servicePaths ?? ['/internal'], acceptTicket(options, 'service', readBody));
  const router = express.Router();
  options.routes(router);
  app.use(router);
  finishApp(app);
  return app;
}

/** Request ids, access log, security headers, JSON without a charset, /healthz and /readyz. */
export function createBaseApp(options: BaseAppOptions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  sendJsonWithoutCharset(app);
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(requestContext(options));
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', service: options.name });
  });
  app.get('/readyz', async (_req, res) => {
    const checks = await runChecks(options.readiness ?? {});
    const ready = !options.isShuttingDown?.() && Object.values(checks).every((c) => c === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', service: options.name, checks });
  });
  return app;
}

/** Unknown routes are 404 problems; every error becomes problem+json. */
export function finishApp(app: express.Express): void {
  app.use((req, _res, next) => next(new AppError('not_found', `No route for ${req.method} ${req.path}.`)));
  app.use(errorHandler);
}

export function sendProblem(res: Response, error: AppError): void {
  for (const [name, value] of Object.entries(error.extra.headers ?? {})) res.setHeader(name, value);
  sendJsonText(res.status(error.status), JSON.stringify(problemBody(error)), PROBLEM_JSON);
}

/** The media types of every answer but /metrics: exactly these, as the OpenAPI document names them. */
export const JSON_TYPE = 'application/json';
export const PROBLEM_JSON = 'application/problem+json';

/**
 * Sends JSON text with exactly `type` as its Content-Type. JSON has no charset parameter
 * (RFC 8259, always UTF-8), and contract tests (Dredd) compare the type literally, but
 * express appends `; charset=utf-8` both in res.send(string) and in res.set/res.type:
 * so the header is set directly and the text sent as bytes.
 */
export function sendJsonText(res: Response, text: string | Buffer, type: string = JSON_TYPE): Response {
  res.setHeader('Content-Type', type);
  return res.send(typeof text === 'string' ? Buffer.from(text, 'utf8') : text);
}

/**
 * Every res.json of this app (each express app has its own response prototype) answers
 * through sendJsonText: `application/json`, or the type a route set before (its essence,
 * without parameters), never a charset.
 */
function sendJsonWithoutCharset(app: express.Express): void {
  replaceAppJson(app, function json(this: Response, body?: unknown) {
    const text = JSON.stringify(body, this.app.get('json replacer'), this.app.get('json spaces')) as string | undefined;
    const given = this.getHeader('Content-Type');
    const type = typeof given === 'string' ? given.split(';')[0]!.trim() : JSON_TYPE;
    return sendJsonText(this, text ?? '', type);
  });
}

/** The caller as the gateway vouched for it; routes under /api/v1 always have one. */
export function principalOf(res: Response): UserPrincipal {
  const principal = res.locals.principal as Principal | undefined;
  if (principal?.kind !== 'user') throw new AppError('unauthorized', 'A user principal is required.');
  return principal;
}

/** The agent's proofs that its caller is calling it now, one per service it calls for them (principal.ts). */
export function proofsOf(res: Response): Proofs {
  const proofs = (res.locals.ticket as CheckedTicket | undefined)?.proofs;
  if (!proofs) throw new AppError('unauthorized', 'The gateway\'s proofs for the user are required.');
  return proofs;
}

/** The request's logger: its lines carry the request id. Made on first use: most requests log nothing. */
export function logOf(res: Response): Logger {
  const locals = res.locals as { log?: Logger; baseLogger: Logger; requestId: string };
  return (locals.log ??= locals.baseLogger.child({ rid: locals.requestId }));
}

const UNMEASURED = new Set(['/healthz', '/readyz']);

/**
 * Marks the answer as a stream (Server-Sent Events): it lasts as long as its client stays,
 * so its access-log line and its count come when it ends however it ends (the client
 * leaving included, which never "finishes" an answer), and its length is kept out of the
 * latency histogram.
 */
export function markStreaming(res: Response): void {
  res.locals.streaming = true;
}

const isStreaming = (res: Response) => res.locals.streaming === true;

/**
 * Every request's first layer: its id, the headers every answer carries, and once it is
 * answered its access log line and metrics (told once: when the answer finishes, or for a
 * stream when its client leaves). Express answers
 * OPTIONS itself with 200 and an Allow header listing the path's methods; an unserved
 * method is 404 here (docs/decisions.md, Errors), and routes are not revealed.
 */
function requestContext(options: BaseAppOptions) {
  const { logger, metrics, isShuttingDown } = options;
  return (req: Request, res: Response, next: NextFunction) => {
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    res.locals.requestId = requestId;
    res.locals.baseLogger = logger;
    res.setHeader('X-Request-Id', requestId);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // While draining, ask keep-alive clients to reconnect elsewhere.
    if (isShuttingDown?.()) res.setHeader('Connection', 'close');
    const path = req.path;
    if (!UNMEASURED.has(path)) {
      const started = process.hrtime.bigint();
      let told = false;
      const tell = () => {
        if (told) return;
        told = true;
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        const streamed = isStreaming(res);
        // A stream's length is its client's, not a latency: it is counted, not timed.
        if (metrics) observeHttp(metrics, req, res, streamed ? null : ms / 1000);
        if (logger.isLevelEnabled('info')) logOf(res).info({ method: req.method, path, status: res.statusCode, ms: Math.round(ms * 10) / 10, ...(streamed ? { streamed: true } : {}) }, 'request');
      };
      res.once('finish', tell);
      // A stream mostly ends by its client leaving, which never finishes the answer: it is told then.
      res.once('close', () => {
        if (isStreaming(res)) tell();
      });
    }
    next(req.method === 'OPTIONS' ? new AppError('not_found', `No route for ${req.method} ${path}.`) : undefined);
  };
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** A body with another Content-Type is 422, not 415. */
function notJsonBody(req: Request): AppError | undefined {
  const sendsBytes = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (!BODY_METHODS.has(req.method) || !sendsBytes || req.is('application/json')) return undefined;
  return new AppError('validation_failed', 'The request body must be JSON sent with Content-Type: application/json.', {
    errors: [{ path: '(body)', message: 'Content-Type must be application/json' }],
  });
}

const REFUSED = 'This service accepts only requests forwarded by the gateway.';

type CheckedTicket = Extract<ReturnType<typeof checkTicket>, { ok: true }>;

/**
 * The ticket (principal.ts) of every request to a path of `kind`, in one layer. From its
 * header alone first, before the body is read, so a request without a valid one costs
 * no body parsing: signature, lifetime, service, method and path, the kind the path
 * serves, and for a service the routes it is listed for. Then, with the body read, that
 * it was made for these bytes and is seen for the first time.
 */
function acceptTicket(options: ServiceAppOptions, kind: Principal['kind'], readBody: (req: Request, res: Response) => Promise<void>) {
  const callers = Object.entries(options.internalCallers ?? {}).map(([route, allowed]) => ({ match: routeMatcher(route), allowed }));
  const fromHeader = (req: Request, res: Response): CheckedTicket | AppError => {
    const path = req.originalUrl;
    const check = checkTicket(req.header(PRINCIPAL_HEADER), options.keys, { audience: options.name, method: req.method, path });
    if (!check.ok || check.principal.kind !== kind) {
      logOf(res).info({ reason: check.ok ? `a ${check.principal.kind} ticket on a ${kind} path` : check.reason }, 'ticket refused');
      return new AppError('unauthorized', REFUSED);
    }
    const principal = check.principal;
    if (principal.kind === 'service') {
      const route = `${req.method} ${path.split('?')[0]}`;
      if (!callers.some(({ match, allowed }) => match.test(route) && allowed.includes(principal.service))) {
        logOf(res).warn({ caller: principal.service, route }, 'internal call outside the caller\'s scope');
        return new AppError('forbidden', `The ${principal.service} service may not call this route.`);
      }
    }
    return check;
  };
  const accepted = async (req: Request, res: Response): Promise<CheckedTicket | AppError> => {
    const ticket = fromHeader(req, res);
    if (ticket instanceof AppError) return ticket;
    const wrongType = notJsonBody(req);
    if (wrongType) return wrongType;
    await readBody(req, res);
    if (receivedBodyDigest(req) !== ticket.bodyDigest) {
      logOf(res).info({ reason: 'made for another body' }, 'ticket refused');
      return new AppError('unauthorized', REFUSED);
    }
    if (!(await options.seenTickets.firstSight(options.name, ticket.jti, ticket.expiresAt))) {
      logOf(res).warn({ reason: 'replayed' }, 'ticket refused');
      return new AppError('unauthorized', REFUSED);
    }
    return ticket;
  };
  return async (req: Request, res: Response, next: NextFunction) => {
    let ticket: CheckedTicket | AppError;
    try {
      ticket = await accepted(req, res);
    } catch (err) {
      return next(err);
    }
    if (ticket instanceof AppError) return next(ticket);
    res.locals.ticket = ticket;
    res.locals.principal = ticket.principal;
    next();
  };
}

/** `'GET /internal/acl/users/:user_id'` → a pattern for `METHOD /path` (a parameter is one segment). */
function routeMatcher(route: string): RegExp {
  const pattern = route.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_]+/g, '[^/]+');
  return new RegExp(`^${pattern}$`);
}

async function runChecks(checks: Record<string, () => Promise<unknown>>): Promise<Record<string, string>> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), READINESS_TIMEOUT_MS);
      });
      try {
        await Promise.race([check(), timeout]);
        return [name, 'ok'] as const;
      } catch {
        return [name, 'unavailable'] as const;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return Object.fromEntries(entries);
}

/** Maps body-parser failures (they carry `type`) to the statuses docs/decisions.md documents. */
function toAppError(error: unknown): AppError | null {
  if (error instanceof AppError) return error;
  if (error instanceof UpstreamUnavailableError) return dependencyUnavailable('A service this request needs');
  // Overload (no pool connection in time) or a database restart: the client may retry.
  if (isDatabaseUnavailable(error)) {
    return new AppError('service_unavailable', 'The database is busy or unreachable. Retry later.', { headers: { 'Retry-After': '1' } });
  }
  if (error instanceof z.ZodError) return new AppError('validation_failed', 'The request is not valid.', { errors: fieldErrors(error) });
  // The router cannot percent-decode a path parameter such as `%E0%A4%A`.
  if (error instanceof URIError) {
    return new AppError('validation_failed', 'The request path is not valid.', { errors: [{ path: '(path)', message: 'malformed percent-encoding' }] });
  }
  const type = (error as { type?: string } | null)?.type;
  switch (type) {
    case 'entity.parse.failed':
      return new AppError('validation_failed', 'The request body is not valid JSON.', {
        errors: [{ path: '(body)', message: 'malformed JSON' }],
      });
    case 'entity.too.large':
      return new AppError('payload_too_large', 'The request body is larger than 1 MiB.');
    case 'encoding.unsupported':
    case 'charset.unsupported':
    case 'entity.verify.failed':
    case 'request.size.invalid':
    case 'request.aborted':
      return new AppError('validation_failed', 'The request body could not be read.', {
        errors: [{ path: '(body)', message: type }],
      });
    default:
      break;
  }
  // Anything else the body reader refuses with a 4xx (bytes that are not valid for
  // their Content-Encoding, for one) is an unreadable body: 422 like malformed JSON.
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new AppError('validation_failed', 'The request body could not be read.', {
      errors: [{ path: '(body)', message: 'cannot be decoded (check Content-Encoding)' }],
    });
  }
  return null;
}

const errorHandler: ErrorRequestHandler = (error, _req, res, _next) => {
  const known = toAppError(error);
  if (known) {
    if (known.status >= 500) logOf(res).warn({ code: known.code }, known.detail);
    return sendProblem(res, known);
  }
  logOf(res).error({ err: error }, 'unexpected error');
  if (res.headersSent) return res.destroy();
  sendProblem(res, new AppError('internal_error', 'Something went wrong on our side. Quote the request id when reporting it.'));
};
