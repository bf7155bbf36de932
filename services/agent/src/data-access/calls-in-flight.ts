import type { CallsInFlight } from '../domain/ports';

/** The calls of each key, counted in this process's memory. */
export function callsInFlight(limit: number): CallsInFlight {
  // Only keys with a call running are held: the map is as large as the calls in flight.
  const running = new Map<string, number>();
  return {
    limit,
    take(key) {
      const count = running.get(key) ?? 0;
      if (count >= limit) return null;
      running.set(key, count + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = running.get(key)! - 1;
        if (left === 0) running.delete(key);
        else running.set(key, left);
      };
    },
  };
}
