import type { IncomingMessage } from 'node:http';
import { bodyDigest, checkTicket, issueTicket, PRINCIPAL_HEADER, type Principal } from '@tracker/kit';
import { devSigningKey, devTrustedKeysText, parseTrustedKeys, type Signer } from '@tracker/signing';

export interface TicketMaking {
  /** Tagged as the parts make them by default; else signed with the signer's key alone, which every service accepts too. */
  tagged?: boolean;
}

/**
 * The ticket a test sends in the principal header, as the real caller would make it
 * with the development keys the services under test trust: a user's by the gateway, a
 * service's by that service.
 */
export function ticketFor(as: Principal, request: { audience: Signer; method: string; path: string; body?: string | Uint8Array }, { tagged }: TicketMaking = {}): string {
  const body = typeof request.body === 'string' ? Buffer.from(request.body) : request.body;
  const signer = as.kind === 'user' ? 'gateway' : as.service;
  // The path as fetch will send it (URL normalisation applied).
  const sent = new URL(request.path, 'http://x');
  const path = sent.pathname + sent.search;
  const keys = tagged ? devTicketKeys(signer) : devSigningKey(signer);
  return issueTicket(keys, { audience: request.audience, method: request.method, path, body, user: as.kind === 'user' ? as : undefined });
}

const DEV_TRUSTED = parseTrustedKeys(devTrustedKeysText());

/** A part's development keys as it checks the tickets sent to it (tagged ones need its own key). */
export const devTicketKeys = (signer: Signer) => ({ key: devSigningKey(signer), trusted: DEV_TRUSTED });

/**
 * For a fake service: the service whose valid ticket, made for this very request, came
 * with it (null for none, a user's, or one made for another request).
 */
export function serviceCallerOf(req: Pick<IncomingMessage, 'headers' | 'method' | 'url'>, rawBody: Uint8Array, audience: Signer): Signer | null {
  const check = checkTicket(req.headers[PRINCIPAL_HEADER] as string | undefined, devTicketKeys(audience), {
    audience,
    method: req.method ?? '',
    path: req.url ?? '',
    bodyDigest: bodyDigest(rawBody),
  });
  return check.ok && check.principal.kind === 'service' ? check.principal.service : null;
}

/** fetch that puts a fresh ticket for `as`, made for each request, on every request it sends. */
export function ticketedFetch(as: Principal, audience: Signer, making: TicketMaking = {}): typeof fetch {
  return (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init.headers);
    const body = typeof init.body === 'string' ? init.body : undefined;
    headers.set(PRINCIPAL_HEADER, ticketFor(as, { audience, method: init.method ?? 'GET', path: url.pathname + url.search, body }, making));
    return fetch(input, { ...init, headers });
  };
}

/** What a test call got back: the status, the headers and the body parsed as JSON (undefined when empty). */
export interface SignedReply {
  status: number;
  headers: Headers;
  body: any;
  /** The body as received. */
  text: string;
}

export interface SignedCallOptions {
  /** Whose fresh ticket the request carries; unset or null: none. */
  as?: Principal | null;
  /** Sent as JSON, with `content-type: application/json` unless `headers` set one in lower case. */
  body?: unknown;
  /** Sent exactly as given (malformed bodies, other types); `body` wins when both are set. */
  raw?: string;
  headers?: Record<string, string>;
}

/**
 * A test's HTTP client for the service `audience` at baseUrl: `call(method, path, options)`
 * puts a ticket for `options.as`, made for that very request, on it, as the gateway (a
 * user's) or the calling service would.
 */
export function signedClient(baseUrl: string, audience: Signer) {
  return async (method: string, path: string, options: SignedCallOptions = {}): Promise<SignedReply> => {
    const headers: Record<string, string> = { ...options.headers };
    let body = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    if (options.as) headers[PRINCIPAL_HEADER] = ticketFor(options.as, { audience, method, path, body });
    const response = await fetch(baseUrl + path, { method, headers, body });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined, text };
  };
}
