import http from 'node:http';
import { AppError } from './errors';
import { PRINCIPAL_HEADER, signPrincipal } from './principal';

export class UpstreamUnavailableError extends Error {}

export interface InternalClient {
  /** JSON call to another service's /internal API with a signed service principal. */
  call: <T>(method: 'GET' | 'POST' | 'PUT', path: string, options?: { body?: unknown; requestId?: string }) => Promise<{ status: number; body: T }>;
}

/**
 * Service-to-service calls: keep-alive, bounded time, signed as `service`. A target
 * that is down or slow is an UpstreamUnavailableError, which routes turn into 503.
 */
export function internalClient(options: { baseUrl: string; secret: string; service: string; timeoutMs: number }): InternalClient {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256, timeout: 30_000 });
  const base = new URL(options.baseUrl);
  return {
    call: (method, path, { body, requestId } = {}) =>
      new Promise((resolve, reject) => {
        const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
        const request = http.request(
          {
            host: base.hostname,
            port: base.port,
            path,
            method,
            agent,
            timeout: options.timeoutMs,
            headers: {
              [PRINCIPAL_HEADER]: signPrincipal({ kind: 'service', service: options.service }, options.secret),
              ...(requestId ? { 'x-request-id': requestId } : {}),
              ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
            },
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('error', (err) => reject(new UpstreamUnavailableError(err.message)));
            response.on('end', () => {
              const status = response.statusCode ?? 0;
              if (status >= 500) return reject(new UpstreamUnavailableError(`${base.host} answered ${status}`));
              try {
                const text = Buffer.concat(chunks).toString('utf8');
                resolve({ status, body: (text ? JSON.parse(text) : undefined) as never });
              } catch (err) {
                reject(new UpstreamUnavailableError(`${base.host} answered invalid JSON`));
              }
            });
          },
        );
        request.on('timeout', () => request.destroy(new Error('timeout')));
        request.on('error', (err) => reject(new UpstreamUnavailableError(`${base.host}: ${err.message}`)));
        request.end(payload);
      }),
  };
}

/** The 503 a route answers when a service it depends on is away. */
export const dependencyUnavailable = (what: string) =>
  new AppError('service_unavailable', `${what} is temporarily unavailable. Retry later.`, { headers: { 'Retry-After': '5' } });
