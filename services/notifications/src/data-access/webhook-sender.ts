import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { addressRefusal, hostOf, normalHost, urlRefusal, type AllowedTargets } from '../domain/targets.rules';

/**
 * Sends webhook deliveries, and checks their URLs, without request forgery
 * (docs/decisions.md, "Webhook deliveries"): every connection resolves the host itself and
 * connects only to addresses checked by domain/targets.rules.ts, so a name that answered a
 * public address when the URL was checked and a private one now (DNS rebinding) is
 * refused at the connection. Each delivery gets its own connection (no pool): nothing is
 * reused past a check, and no idle socket the receiver closed fails the next delivery.
 */

export type Resolve = (host: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

export interface WebhookSenderOptions {
  allowed: AllowedTargets;
  /** The bound of one delivery: connecting, the answer's headers and its body (10 s). */
  timeoutMs?: number;
  /** The most bytes of an answer's body read; the rest is not waited for (64 KiB). */
  maxResponseBytes?: number;
  /** Resolves a host name to its addresses (default: the system's resolver, as node's own connections use). */
  resolve?: Resolve;
}

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface WebhookResult {
  /** The receiver's status, null when no whole answer came (refused, failed, timed out). */
  statusCode: number | null;
  durationMs: number;
  /** Why no answer came, at most ERROR_MAX_LENGTH characters; null when one did (whatever its status). */
  error: string | null;
}

export interface WebhookSender {
  /** Why a webhook URL is refused (a message about the field `url`), or null: its form, then every address its host resolves to. */
  checkUrl(url: string): Promise<string | null>;
  /** One POST: never throws, follows no redirect (a 3xx is answered as it is). */
  send(request: WebhookRequest): Promise<WebhookResult>;
}

export const ERROR_MAX_LENGTH = 300;

const defaultResolve: Resolve = async (host) => (await dnsLookup(host, { all: true, verbatim: true })) as Array<{ address: string; family: 4 | 6 }>;

/** A refusal of the target, raised inside the connection's lookup. */
class RefusedTarget extends Error {}

export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const { allowed } = options;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxResponseBytes = options.maxResponseBytes ?? 64 * 1024;
  const resolve = options.resolve ?? defaultResolve;

  /** The addresses of `host`, every one allowed; else why not (a RefusedTarget). */
  async function checkedAddresses(host: string): Promise<Array<{ address: string; family: 4 | 6 }>> {
    if (isIP(host) !== 0) {
      const refusal = addressRefusal(host, host, allowed);
      if (refusal) throw new RefusedTarget(refusal);
      return [{ address: host, family: isIP(host) as 4 | 6 }];
    }
    let addresses: Array<{ address: string; family: 4 | 6 }>;
    try {
      addresses = await resolve(host);
    } catch {
      throw new RefusedTarget(`${host} does not resolve`);
    }
    if (addresses.length === 0) throw new RefusedTarget(`${host} does not resolve`);
    for (const { address } of addresses) {
      const refusal = addressRefusal(address, host, allowed);
      if (refusal) throw new RefusedTarget(refusal);
    }
    return addresses.map(({ address }) => ({ address, family: isIP(address) as 4 | 6 }));
  }

  /** net's `lookup` hook: every new connection resolves again and gets only checked addresses. */
  const checkedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    checkedAddresses(hostname).then(
      (addresses) => {
        const wanted = lookupOptions.family === 4 || lookupOptions.family === 6 ? addresses.filter((a) => a.family === lookupOptions.family) : addresses;
        if (wanted.length === 0) return callback(Object.assign(new Error(`${hostname} has no IPv${lookupOptions.family} address`), { code: 'ENOTFOUND' }), '', 0);
        if (lookupOptions.all) return (callback as unknown as (err: null, all: typeof wanted) => void)(null, wanted);
        return callback(null, wanted[0]!.address, wanted[0]!.family);
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };

  async function checkUrl(url: string): Promise<string | null> {
    const refusal = urlRefusal(url);
    if (refusal) return refusal;
    const host = hostOf(new URL(url));
    // A host the operator allowed by name is taken as it is: it may resolve only where the deliveries run.
    if (allowed.hosts.has(normalHost(host))) return null;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new RefusedTarget(`${host} does not resolve (no answer within ${seconds(timeoutMs)})`)), timeoutMs);
    });
    try {
      await Promise.race([checkedAddresses(host), timeout]);
      return null;
    } catch (error) {
      if (error instanceof RefusedTarget) return `must point to a public address: ${error.message}`.slice(0, ERROR_MAX_LENGTH);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  function send(request: WebhookRequest): Promise<WebhookResult> {
    const started = performance.now();
    const done = (statusCode: number | null, error: string | null): WebhookResult => ({
      statusCode,
      durationMs: Math.round(performance.now() - started),
      error: error === null ? null : bounded(error),
    });
    const refusal = urlRefusal(request.url);
    if (refusal) return Promise.resolve(done(null, `refused: the URL ${refusal}`));
    const url = new URL(request.url);
    const host = hostOf(url);
    // net connects to an IP literal without a lookup: it is checked here (it cannot change).
    if (isIP(host) !== 0) {
      const literal = addressRefusal(host, host, allowed);
      if (literal) return Promise.resolve(done(null, `refused: ${literal}`));
    }

    return new Promise<WebhookResult>((settle) => {
      let finished = false;
      let status: number | null = null;
      let timer: NodeJS.Timeout | undefined;
      const finish = (statusCode: number | null, error: string | null) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        settle(done(statusCode, error));
      };
      const transport = url.protocol === 'https:' ? https : http;
      const body = Buffer.from(request.body, 'utf8');
      const requestOptions: https.RequestOptions = {
        method: 'POST',
        protocol: url.protocol,
        // The name, not an address: TLS checks the certificate against it and sends it as SNI.
        hostname: host,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        headers: { ...request.headers, 'content-length': String(body.length) },
        lookup: checkedLookup,
        agent: false,
        maxHeaderSize: 16 * 1024,
      };
      let req: http.ClientRequest;
      try {
        req = transport.request(requestOptions);
      } catch (error) {
        // Options node refuses before connecting (a header value it cannot send).
        return finish(null, describeError(error as Error));
      }
      timer = setTimeout(() => {
        finish(null, `timed out after ${seconds(timeoutMs)}${status === null ? '' : ` reading the answer (status ${status})`}`);
        req.destroy();
      }, timeoutMs);
      req.on('error', (error) => finish(null, describeError(error)));
      req.on('response', (res) => {
        status = res.statusCode ?? null;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          // Enough is read: the status is what counts; the rest is not waited for.
          if (read >= maxResponseBytes) {
            finish(status, null);
            req.destroy();
          }
        });
        res.on('end', () => finish(status, null));
        res.on('error', (error) => finish(null, describeError(error)));
        res.on('aborted', () => finish(null, 'the connection closed before the answer ended'));
      });
      req.end(body);
    });
  }

  return { checkUrl, send };
}

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

const bounded = (text: string) => (text.length > ERROR_MAX_LENGTH ? `${text.slice(0, ERROR_MAX_LENGTH - 1)}…` : text);

const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'does not resolve',
  EAI_AGAIN: 'does not resolve',
};

/** A failure as the delivery log shows it: short, without a stack, naming the cause. */
function describeError(error: Error & { code?: string }): string {
  if (error instanceof RefusedTarget) return `refused: ${error.message}`;
  const code = error.code ?? '';
  if (NETWORK_ERRORS[code]) return NETWORK_ERRORS[code]!;
  if (code === 'HPE_HEADER_OVERFLOW') return 'the answer`s headers are too large';
  if (code.startsWith('HPE_')) return `the answer is not valid HTTP (${code})`;
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(code)) return `TLS: ${error.message}`;
  if (error.message === 'socket hang up') return 'the connection closed before an answer';
  return code ? `${code}: ${error.message}` : error.message;
}
