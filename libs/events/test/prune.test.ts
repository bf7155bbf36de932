import { keepPublishedOutboxPruned, outboxTable, prunePublishedOutbox } from '../src';
import { captureLogger, insertOutbox, outboxDatabase, userUpdated, waitFor } from './support';

/**
 * Published outbox rows are kept for `retentionHours` (to look into a delivery), then
 * pruned; a row not yet published is never pruned, however old.
 */
let database: Awaited<ReturnType<typeof outboxDatabase>>;
beforeAll(async () => {
  database = await outboxDatabase('prune');
});
afterAll(() => database.close());

const table = () => outboxTable(database.db.schema);

/** `count` rows (events `from`, `from + 1`, …), published `publishedHoursAgo` ago (null: not published). */
async function rows(from: number, count: number, publishedHoursAgo: number | null): Promise<void> {
  const events = Array.from({ length: count }, (_, i) => userUpdated(from + i));
  await insertOutbox(database.pool, database.db.schema, events);
  if (publishedHoursAgo === null) return;
  await database.pool.query(`UPDATE ${table()} SET published_at = now() - make_interval(hours => $1) WHERE event_id = ANY($2::uuid[])`, [
    publishedHoursAgo,
    events.map((e) => e.event_id),
  ]);
}

const remaining = async () =>
  (
    await database.pool.query<{ published: boolean; n: number }>(
      `SELECT published_at IS NOT NULL AS published, count(*)::int AS n FROM ${table()} GROUP BY 1 ORDER BY 1`,
    )
  ).rows;

beforeEach(() => database.pool.query(`TRUNCATE ${table()}`));

test('when rows were published longer ago than the retention, then they are deleted; newer and unpublished rows stay', async () => {
  await rows(1, 3, 30); // published 30 h ago: past 24 h
  await rows(10, 2, 2); // published 2 h ago
  await rows(20, 2, null); // never published
  await database.pool.query(`UPDATE ${table()} SET created_at = now() - interval '90 days' WHERE published_at IS NULL`);

  expect(await prunePublishedOutbox(database.pool, database.db.schema, 24)).toBe(3);
  expect(await remaining()).toEqual([
    { published: false, n: 2 },
    { published: true, n: 2 },
  ]);
  expect(await prunePublishedOutbox(database.pool, database.db.schema, 1)).toBe(2);
  expect(await remaining()).toEqual([{ published: false, n: 2 }]);
});

test('when more rows are due than a batch, then one call deletes a batch, oldest first', async () => {
  await rows(1, 5, 50);
  await rows(10, 5, 40);
  expect(await prunePublishedOutbox(database.pool, database.db.schema, 24, 5)).toBe(5);
  const left = await database.pool.query<{ hours: number }>(`SELECT round(EXTRACT(EPOCH FROM now() - published_at) / 3600)::int AS hours FROM ${table()}`);
  expect(left.rows.map((r) => r.hours)).toEqual([40, 40, 40, 40, 40]);
});

test('when kept pruned, then rounds delete batch after batch until none is due, and the newer row stays', async () => {
  await rows(1, 7, 48);
  await rows(10, 1, 1);
  const logger = captureLogger();
  const pruning = keepPublishedOutboxPruned(database.pool, database.db.schema, logger, { retentionHours: 24, intervalMs: 20, batch: 2 });
  try {
    await waitFor(async () => (await remaining()).length === 1 && (await remaining())[0]!.n === 1, 5000, 'the due rows pruned');
  } finally {
    await pruning.stop();
  }
  expect(await remaining()).toEqual([{ published: true, n: 1 }]);
  expect(logger.entries.filter((e) => e.level === 'warn')).toEqual([]);
});

test('when a round fails, then it is logged as a warning and the next round tries again', async () => {
  const logger = captureLogger();
  const pruning = keepPublishedOutboxPruned(database.pool, 'no_such_schema', logger, { retentionHours: 24, intervalMs: 20 });
  try {
    await waitFor(() => logger.lines('warn', /pruning published outbox rows failed/).length >= 2, 5000, 'two failed rounds logged');
  } finally {
    await pruning.stop();
  }
  expect(logger.lines('warn', /pruning/)[0]!.obj).toMatchObject({ schema: 'no_such_schema' });
});
