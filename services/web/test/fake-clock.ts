import type { Clock } from '../app/src/session-token';

/** Lets the promises in flight run: `rounds` turns of the event loop (a stream's chunks take several). */
export async function settle(rounds = 1): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * A hand-driven clock standing in for time: timers run only when `advance` moves time past
 * them. `settleRounds` is how long each timer's work is let run before the next comes due.
 */
export function fakeClock({ start = 0, settleRounds = 1 }: { start?: number; settleRounds?: number } = {}) {
  let now = start;
  let timers: Array<{ at: number; run: () => void; id: number }> = [];
  let nextId = 1;
  const clock: Clock = {
    now: () => now,
    setTimeout: (run, ms) => {
      const id = nextId++;
      timers.push({ at: now + ms, run, id });
      return id;
    },
    clearTimeout: (id) => {
      timers = timers.filter((timer) => timer.id !== id);
    },
  };
  /** Moves time on, running each timer that comes due (and what it schedules), in order. */
  const advance = async (ms: number) => {
    const until = now + ms;
    for (;;) {
      const due = timers.filter((timer) => timer.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      timers = timers.filter((timer) => timer !== due);
      now = due.at;
      due.run();
      await settle(settleRounds);
    }
    now = until;
  };
  return { clock, advance, pending: () => timers.length };
}
