/** Whether a client with `failures` failed authentications in this window is past `limit` (0: no limit). */
export const failureLimitReached = (failures: number, limit: number): boolean => limit > 0 && failures >= limit;

export interface TokenRateLimit {
  /** RateLimit-Limit, and RateLimit-Remaining when the request was counted. */
  headers: Record<string, string>;
  over: boolean;
}

/**
 * Where a token stands after this request, its `requests`-th in the window. A limit of 0
 * is no limit and no headers; an uncounted request (Redis did not answer) announces the
 * limit but not the remainder, and is never refused.
 */
export function tokenRateLimit(limit: number, requests: number | null): TokenRateLimit {
  if (limit === 0) return { headers: {}, over: false };
  if (requests === null) return { headers: { 'RateLimit-Limit': String(limit) }, over: false };
  return {
    headers: { 'RateLimit-Limit': String(limit), 'RateLimit-Remaining': String(Math.max(0, limit - requests)) },
    over: requests > limit,
  };
}
