import { Client } from 'pg';
import { issueState, newId, queueState } from './fixtures';
import { problem, startStatistics, type StatisticsHarness } from './harness';

/**
 * Requests and events run with DATABASE_STATEMENT_TIMEOUT_MS per statement (300 ms here):
 * a statement made slow is cancelled and /statistics answers 503 `statistics_unavailable`
 * with Retry-After. A rebuild's page transactions run with REBUILD_STATEMENT_TIMEOUT_MS
 * instead, so a rebuild that has to wait or work longer is not cut by the request limit.
 */
let h: StatisticsHarness;
beforeAll(async () => {
  h = await startStatistics({ env: { DATABASE_STATEMENT_TIMEOUT_MS: '300', REBUILD_STATEMENT_TIMEOUT_MS: '20000' } });
  await h.markBuilt();
});
afterAll(() => h.close());

/** Holds `lock` in a transaction of a test connection for `ms` while `work` runs. */
async function holding<T>(lock: string, ms: number, work: () => Promise<T>): Promise<T> {
  const blocker = new Client({ connectionString: h.schema.databaseUrl });
  await blocker.connect();
  await blocker.query('BEGIN');
  await blocker.query(`SET LOCAL search_path TO "${h.schema.schema}"`);
  await blocker.query(lock);
  const release = new Promise((resolve) => setTimeout(resolve, ms)).then(() => blocker.query('ROLLBACK')).finally(() => blocker.end());
  try {
    return await work();
  } finally {
    await release;
  }
}

test('when the statistics statement waits on a locked replica table, then 503 statistics_unavailable with Retry-After', async () => {
  const ws = h.workspace();
  const res = await holding('LOCK TABLE issues IN ACCESS EXCLUSIVE MODE', 1500, () =>
    h.call('POST', '/api/v1/statistics', { as: ws.admin, body: { search: 'anything' } }),
  );
  expect(res).toMatchObject({ status: 503, body: problem(503, 'statistics_unavailable') });
  expect(res.headers.get('retry-after')).toBe('5');
  expect((await h.call('POST', '/api/v1/statistics', { as: ws.admin, body: {} })).status).toBe(200);
});

test('when a rebuild page waits longer than a request may, then it still completes; the same write outside a rebuild is cut', async () => {
  const ws = h.workspace();
  const queue = queueState(ws.id, 'SLOW');
  const issue = issueState(queue);
  await h.seed({ queues: [queue], issues: [issue] });
  const comment = (body: string) => [{ id: newId(), issueId: issue.id, body }];

  await expect(
    holding('LOCK TABLE comments IN ACCESS EXCLUSIVE MODE', 1000, () => h.service.replica.transaction((w) => w.addComments(comment('event'), new Date()))),
  ).rejects.toMatchObject({ code: '57014' });
  const applied = await holding('LOCK TABLE comments IN ACCESS EXCLUSIVE MODE', 1000, () =>
    h.service.replica.transaction((w) => w.addComments(comment('rebuild'), null), { bulk: true }),
  );
  expect(applied).toHaveLength(1);
  expect(await h.schema.query('SELECT body FROM comments WHERE issue_id = $1', [issue.id])).toEqual([{ body: 'rebuild' }]);
});

test('when a snapshot comment belongs to an issue the replica does not hold, then it is skipped, not a failed page', async () => {
  const missing = newId();
  const applied = await h.service.replica.transaction((w) => w.addComments([{ id: newId(), issueId: missing, body: 'orphan' }], null), { bulk: true });
  expect(applied).toEqual([]);
  expect(await h.schema.query('SELECT id FROM comments WHERE issue_id = $1', [missing])).toEqual([]);
});
