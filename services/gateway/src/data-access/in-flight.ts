import type { InFlight } from '../domain/ports';

/**
 * At most `limit` at once in this process (0: none at all), and at most `perSecond` taken
 * in any second (a bucket holding one second's worth, refilled as time passes).
 */
export function inFlight(limit: number, perSecond = Infinity, now: () => number = Date.now): InFlight {
  let taken = 0;
  let bucket = perSecond;
  let filledAt = now();
  return {
    tryTake() {
      const at = now();
      bucket = Math.min(perSecond, bucket + ((at - filledAt) / 1000) * perSecond);
      filledAt = at;
      if (taken >= limit || bucket < 1) return false;
      taken++;
      bucket--;
      return true;
    },
    release() {
      taken = Math.max(0, taken - 1);
    },
  };
}

/**
 * At most `limit` at once per key (a client address), in this process. A key is forgotten
 * when its count is back to 0, so the map holds only keys with something in flight: no
 * more than the server's connections.
 */
export function inFlightPerKey(limit: number): { tryTake(key: string): boolean; release(key: string): void } {
  const counts = new Map<string, number>();
  return {
    tryTake(key) {
      const count = counts.get(key) ?? 0;
      if (count >= limit) return false;
      counts.set(key, count + 1);
      return true;
    },
    release(key) {
      const count = (counts.get(key) ?? 0) - 1;
      if (count > 0) counts.set(key, count);
      else counts.delete(key);
    },
  };
}
