import type { Logger } from '@tracker/kit';
import type { DeliveriesRepository, EventLog } from './ports';

export interface PruneDeps {
  log: EventLog;
  deliveries: DeliveriesRepository;
  clock: () => Date;
  retention: { hours: number };
}

/**
 * Deletes the events recorded more than `retention.hours` ago, and the finished webhook
 * deliveries made as long ago (pending ones stay until they end), batch after batch until a
 * batch comes back short (at most `maxBatches` a round each, to bound a round's work);
 * returns how many of each went. Each workspace's horizon moves with its deleted events,
 * so a cursor before them is refused (410) rather than silently skipping them.
 */
export async function pruneEvents(deps: PruneDeps, options: { batch?: number; maxBatches?: number } = {}): Promise<{ events: number; deliveries: number }> {
  const { batch = 1000, maxBatches = 100 } = options;
  const before = new Date(deps.clock().getTime() - deps.retention.hours * 3_600_000);
  const inBatches = async (prune: (before: Date, batch: number) => Promise<number>) => {
    let pruned = 0;
    for (let n = 0; n < maxBatches; n++) {
      const count = await prune(before, batch);
      pruned += count;
      if (count < batch) break;
    }
    return pruned;
  };
  return { events: await inBatches(deps.log.prune), deliveries: await inBatches(deps.deliveries.prune) };
}

/**
 * Prunes every `intervalMs` (each replica may: an event deleted twice is harmless). A round
 * still running is not joined by a second; a failed one is logged and tried again next time.
 */
export function keepEventsPruned(deps: PruneDeps, logger: Pick<Logger, 'warn' | 'info'>, options: { intervalMs: number }): { stop: () => Promise<void> } {
  let round: Promise<void> | null = null;
  const timer = setInterval(() => {
    round ??= pruneEvents(deps)
      .then((pruned) => {
        if (pruned.events + pruned.deliveries > 0) logger.info({ ...pruned, retentionHours: deps.retention.hours }, 'events and deliveries past their retention deleted');
      })
      .catch((err: unknown) => logger.warn({ err }, 'pruning the event log failed; next try later'))
      .finally(() => (round = null));
  }, options.intervalMs);
  timer.unref();
  return {
    // A round in flight finishes before the pool it uses is closed.
    stop: async () => {
      clearInterval(timer);
      await round;
    },
  };
}
