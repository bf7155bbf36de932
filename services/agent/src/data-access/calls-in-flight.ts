/**
 * The tool calls each key (a user) has running in this process, at most `limit` at once.
 * A call past the bound is refused at once rather than queued: a queue would only move
 * the pile-up from the services into the agent's memory.
 */
export interface CallsInFlight {
  readonly limit: number;
  /** A slot for `key`, or null when `key` already has `limit` calls running. The slot is freed by its release (a second release does nothing). */
  take: (key: string) => (() => void) | null;
}

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
