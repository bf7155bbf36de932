import { isIPv6 } from 'node:net';

/** Fixed one-minute windows: cheap (one INCR), and Retry-After is the rest of the window. */
export const WINDOW_SECONDS = 60;

export function windowOf(nowMs: number): { id: number; retryAfterSeconds: number } {
  const seconds = Math.floor(nowMs / 1000);
  return { id: Math.floor(seconds / WINDOW_SECONDS), retryAfterSeconds: WINDOW_SECONDS - (seconds % WINDOW_SECONDS) };
}

export const rateLimitKey = (tokenHash: string, windowId: number) => `rl:${tokenHash.slice(0, 32)}:${windowId}`;

export const authFailureKey = (clientAddress: string, windowId: number) => `af:${clientAddress}:${windowId}`;

/**
 * The client a failed authentication and requests in flight are counted against: the
 * connection's address, or behind a reverse proxy the last entry of the header it sets
 * (X-Forwarded-For style: the entries before it come from the client and can be forged).
 * An IPv6 client is its /64 (clientKeyOf). Bounded in length, since it becomes part of a
 * Redis key.
 */
export function clientAddressOf(headerValue: string | string[] | undefined, socketAddress: string | undefined, useHeader: boolean): string {
  const raw = useHeader && headerValue !== undefined ? (Array.isArray(headerValue) ? headerValue.at(-1)! : headerValue) : socketAddress;
  const address = raw?.split(',').at(-1)?.trim();
  return address ? clientKeyOf(address.slice(0, 64)) : 'unknown';
}

/**
 * IPv4 as it is, also when written as an IPv4-mapped IPv6 address; IPv6 by its /64 prefix,
 * the block a single subscriber or host is given, so one client cannot pass for 2^64
 * others. Anything else (a proxy's header that is no address) as it is.
 */
export function clientKeyOf(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  const unbracketed = address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  if (!isIPv6(unbracketed)) return address;
  return `${groupsOf(unbracketed).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, in hex without leading zeros. */
function groupsOf(address: string): string[] {
  let text = address;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((group) => parseInt(group, 16).toString(16));
}
