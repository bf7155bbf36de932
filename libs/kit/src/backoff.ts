export interface BackoffOptions {
  /** The delay after the first failure (attempt 1); each further attempt doubles it. */
  baseMs: number;
  /** The longest delay; unset = no cap. */
  maxMs?: number;
  /**
   * The share by which a delay may be shortened at random (0.25: by up to 25%), so that
   * many clients failing at once do not all retry at the same moment; unset = none.
   */
  jitter?: number;
}

/**
 * How long to wait before retrying after `attempt` failures (1, 2, 3 …): baseMs, 2 × baseMs,
 * 4 × baseMs … up to maxMs, then shortened by the jitter. A jittered delay is whole
 * milliseconds.
 */
export function backoffDelay(attempt: number, { baseMs, maxMs = Infinity, jitter = 0 }: BackoffOptions): number {
  const delay = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  if (jitter === 0) return delay;
  return Math.round(delay * (1 - jitter + Math.random() * jitter));
}
