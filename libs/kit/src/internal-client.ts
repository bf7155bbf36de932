import http from 'node:http';
import { AppError } from './errors';
import { issueTicket, PRINCIPAL_HEADER, type TicketKeys, type UserPrincipal } from './principal';
import type { Signer } from '@tracker/signing';

export class UpstreamUnavailableError extends Error {}

export interface UpstreamAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body as sent, undecoded (an answer relayed as it came). */
  text: string;
}

export interface ServiceClient {
  /**
   * One call to the service with a ticket made for it (principal.ts): for `user` when
   * given (with `onBehalfOf`, the agent's proof), else as this service itself. Its answer
   * whatever the status; a service that is down, slow or cut off mid-answer is an
   * UpstreamUnavailableError.
   */
  request: (
    method: string,
    path: string,
    options: { user?: UserPrincipal; onBehalfOf?: string; body?: unknown; requestId?: string; headers?: Record<string, string> },
  ) => Promise<UpstreamAnswer>;
}

/** Calls to one service over keep-alive connections, in bounded time, each with its own ticket. */
export function serviceClient(options: { baseUrl: string; audience: Signer; keys: TicketKeys; timeoutMs: number }): ServiceClient {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256, timeout: 30_000 });
  const base = new URL(options.baseUrl);
  return {
    request: (method, path, { user, onBehalfOf, body, requestId, headers }) =>
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
              ...headers,
              [PRINCIPAL_HEADER]: issueTicket(options.keys, { audience: options.audience, method, path, body: payload, user, onBehalfOf }),
              ...(requestId ? { 'x-request-id': requestId } : {}),
              ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
            },
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('error', (err) => reject(new UpstreamUnavailableError(err.message)));
            response.on('end', () =>
              resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }),
            );
          },
        );
        request.on('timeout', () => request.destroy(new Error('timeout')));
        request.on('error', (err) => reject(new UpstreamUnavailableError(`${base.host}: ${err.message}`)));
        request.end(payload);
      }),
  };
}

export interface InternalClient {
  /** JSON call to another service's /internal API with a signed service principal. */
  call: <T>(method: 'GET' | 'POST' | 'PUT', path: string, options?: { body?: unknown; requestId?: string }) => Promise<{ status: number; body: T }>;
}

/**
 * Service-to-service calls, as the service whose key signs them. A target that is down,
 * slow or failing (5xx) is an UpstreamUnavailableError, which routes turn into 503.
 */
export function internalClient(options: { baseUrl: string; audience: Signer; keys: TicketKeys; timeoutMs: number }): InternalClient {
  const client = serviceClient(options);
  const host = new URL(options.baseUrl).host;
  return {
    async call(method, path, { body, requestId } = {}) {
      const { status, text } = await client.request(method, path, { body, requestId });
      if (status >= 500) throw new UpstreamUnavailableError(`${host} answered ${status}`);
      try {
        return { status, body: (text ? JSON.parse(text) : undefined) as never };
      } catch {
        throw new UpstreamUnavailableError(`${host} answered invalid JSON`);
      }
    },
  };
}

/**
 * The 503 for a request whose owning service is down or did not answer in time:
 * the statistics paths have their own code (docs/decisions.md, Requests and answers), every other service answers alike.
 */
export const upstreamUnavailable = (service: string) =>
  service === 'statistics'
    ? new AppError('statistics_unavailable', 'The statistics service is temporarily unavailable. Retry later.', { headers: { 'Retry-After': '5' } })
    : new AppError('service_unavailable', `The ${service} service is temporarily unavailable. Retry later.`, { headers: { 'Retry-After': '5' } });

/** The 503 a route answers when a service it depends on is away. */
export const dependencyUnavailable = (what: string) =>
  new AppError('service_unavailable', `${what} is temporarily unavailable. Retry later.`, { headers: { 'Retry-After': '5' } });
