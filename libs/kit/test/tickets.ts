import { devSigningKey, devTrustedKeysText, parseTrustedKeys } from '@tracker/signing';
import { issueTicket, PRINCIPAL_HEADER, type Principal } from '../src/principal';
import { inProcessSeenTickets } from '../src/seen-tickets';

/** What a test service app needs to check tickets: it is "issues" with its development key and trusts the others'. */
export const ticketOptions = () => ({ name: 'issues' as const, keys: { key: devSigningKey('issues'), trusted: parseTrustedKeys(devTrustedKeysText()) }, seenTickets: inProcessSeenTickets() });

const MARK = 'as:';

/** Headers naming whom a request is for; ticketedFetch turns them into a real ticket for that request. */
export const as = (principal: Principal) => ({ [PRINCIPAL_HEADER]: MARK + JSON.stringify(principal) });

/** fetch, with an `as(...)` header replaced by a ticket made for the very request sent (a user's by the gateway, a service's by itself). */
export const ticketedFetch: typeof fetch = (input, init = {}) => {
  const headers = new Headers(init.headers);
  const mark = headers.get(PRINCIPAL_HEADER);
  if (mark?.startsWith(MARK)) {
    const principal = JSON.parse(mark.slice(MARK.length)) as Principal;
    const url = new URL(String(input));
    const body = typeof init.body === 'string' ? Buffer.from(init.body) : init.body instanceof Uint8Array ? init.body : undefined;
    const signer = principal.kind === 'user' ? 'gateway' : principal.service;
    headers.set(
      PRINCIPAL_HEADER,
      issueTicket(devSigningKey(signer), { audience: 'issues', method: init.method ?? 'GET', path: url.pathname + url.search, body, user: principal.kind === 'user' ? principal : undefined }),
    );
  }
  return fetch(input, { ...init, headers });
};
