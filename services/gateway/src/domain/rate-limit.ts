/** Fixed one-minute windows: cheap (one INCR), and Retry-After is the rest of the window. */
export const WINDOW_SECONDS = 60;

export function windowOf(nowMs: number): { id: number; retryAfterSeconds: number } {
  const seconds = Math.floor(nowMs / 1000);
  return { id: Math.floor(seconds / WINDOW_SECONDS), retryAfterSeconds: WINDOW_SECONDS - (seconds % WINDOW_SECONDS) };
}

export const rateLimitKey = (tokenHash: string, windowId: number) => `rl:${tokenHash.slice(0, 32)}:${windowId}`;
