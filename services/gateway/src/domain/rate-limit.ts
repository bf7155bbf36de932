/** Fixed one-minute windows: cheap (one INCR), and Retry-After is the rest of the window. */
export const WINDOW_SECONDS = 60;

export function windowOf(nowMs: number): { id: number; retryAfterSeconds: number } {
  const seconds = Math.floor(nowMs / 1000);
  return { id: Math.floor(seconds / WINDOW_SECONDS), retryAfterSeconds: WINDOW_SECONDS - (seconds % WINDOW_SECONDS) };
}

export const rateLimitKey = (tokenHash: string, windowId: number) => `rl:${tokenHash.slice(0, 32)}:${windowId}`;

export const authFailureKey = (clientAddress: string, windowId: number) => `af:${clientAddress}:${windowId}`;

/**
 * The client a failed authentication is counted against: the connection's address, or
 * behind a reverse proxy the last entry of the header it sets (X-Forwarded-For style:
 * the entries before it come from the client and can be forged). Bounded in length,
 * since it becomes part of a Redis key.
 */
export function clientAddressOf(headerValue: string | string[] | undefined, socketAddress: string | undefined, useHeader: boolean): string {
  const raw = useHeader && headerValue !== undefined ? (Array.isArray(headerValue) ? headerValue.at(-1)! : headerValue) : socketAddress;
  const address = raw?.split(',').at(-1)?.trim();
  return address ? address.slice(0, 64) : 'unknown';
}
