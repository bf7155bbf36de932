import type { Pool } from 'pg';
import type { EventsLogger } from './broker';
import { outboxTable } from './outbox';

/**
 * Deletes outbox rows published more than `retentionHours` ago, at most `batch` of them;
 * returns how many went. Unpublished rows are never touched (`published_at IS NULL` is
 * not older than anything). The published_at index finds them.
 */
export async function prunePublishedOutbox(pool: Pick<Pool, 'query'>, schema: string, retentionHours: number, batch = 1000): Promise<number> {
  const table = outboxTable(schema);
  const { rowCount } = await pool.query(
    `DELETE FROM ${table} WHERE id IN (
       SELECT id FROM ${table} WHERE published_at < now() - make_interval(hours => $1) ORDER BY published_at LIMIT $2)`,
    [retentionHours, batch],
  );
  return rowCount ?? 0;
}

/**
 * Prunes published rows every `intervalMs` (each replica may: a row deleted twice is
 * harmless), batch after batch until a batch comes back short, so the table holds about
 * `retentionHours` of events however fast they come; at most `maxBatches` a round, to
 * bound each round's work. A failed round is logged and tried again next time.
 */
export function keepPublishedOutboxPruned(
  pool: Pick<Pool, 'query'>,
  schema: string,
  logger: Pick<EventsLogger, 'warn'>,
  options: { retentionHours: number; intervalMs?: number; batch?: number; maxBatches?: number },
): { stop: () => Promise<void> } {
  const { retentionHours, intervalMs = 60_000, batch = 1000, maxBatches = 100 } = options;
  let round: Promise<void> | null = null;
  const prune = async () => {
    for (let n = 0; n < maxBatches && (await prunePublishedOutbox(pool, schema, retentionHours, batch)) === batch; n++);
  };
  const timer = setInterval(() => {
    // A round still running (a large backlog after an upgrade) is not joined by a second one.
    round ??= prune()
      .catch((err: unknown) => logger.warn({ schema, err }, 'pruning published outbox rows failed; next try later'))
      .finally(() => (round = null));
  }, intervalMs);
  timer.unref();
  return {
    // A round in flight finishes before the pool it uses is closed.
    stop: async () => {
      clearInterval(timer);
      await round;
    },
  };
}
