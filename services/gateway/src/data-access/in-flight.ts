import type { InFlight } from '../domain/deps';

/** At most `limit` at once in this process (0: none at all). */
export function inFlight(limit: number): InFlight {
  let taken = 0;
  return {
    tryTake() {
      if (taken >= limit) return false;
      taken++;
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
