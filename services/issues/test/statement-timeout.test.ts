import { Client } from 'pg';
import { problem, useIssuesService } from './harness';

/**
 * Every statement of a request is bounded (DATABASE_STATEMENT_TIMEOUT_MS, 5 s by default;
 * 500 ms here): a statement made slow, here by a lock a test connection holds, is
 * cancelled by the server and answered 503 `service_unavailable` with Retry-After, and
 * its transaction leaves nothing behind.
 */
const h = useIssuesService({ DATABASE_STATEMENT_TIMEOUT_MS: '500' });

async function holding<T>(lock: string, work: () => Promise<T>): Promise<T> {
  const blocker = new Client({ connectionString: h.schema.databaseUrl });
  await blocker.connect();
  try {
    await blocker.query('BEGIN');
    await blocker.query(`SET LOCAL search_path TO "${h.schema.schema}"`);
    await blocker.query(lock);
    return await work();
  } finally {
    await blocker.query('ROLLBACK').catch(() => undefined);
    await blocker.end();
  }
}

async function setup() {
  const { ws, queue, writer } = await h.writableQueue();
  return { ws, queue, writer, issue: await h.issue(writer, queue.id) };
}

const stateOf = async (issueId: number) =>
  (
    await h.schema.query(
      `SELECT revision, version, updated_at, (SELECT count(*)::int FROM comments WHERE issue_id = $1) AS comments,
              (SELECT count(*)::int FROM issue_history WHERE issue_id = $1) AS history, (SELECT count(*)::int FROM outbox_events) AS events
         FROM issues WHERE id = $1`,
      [issueId],
    )
  )[0];

test('then every pooled connection has the configured statement_timeout', async () => {
  expect((await h.service.pool.query('SHOW statement_timeout')).rows[0]).toEqual({ statement_timeout: '500ms' });
});

test('when a comment waits on a table another session locked, then 503 with Retry-After once its statement runs out, and nothing is written', async () => {
  const { writer, issue } = await setup();
  const before = await stateOf(issue.id);
  const res = await holding('LOCK TABLE comments IN ACCESS EXCLUSIVE MODE', async () => {
    const started = Date.now();
    const answer = await h.call('POST', `/api/v1/issues/${issue.key}/comments`, { as: writer, body: { body: 'held up' } });
    expect(Date.now() - started).toBeLessThan(4000);
    return answer;
  });
  expect(res).toMatchObject({ status: 503, body: problem(503, 'service_unavailable') });
  expect(res.headers.get('retry-after')).toBe('1');
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  // The issue row was already touched (revision, updated_at) when the insert waited: all of it rolled back.
  expect(await stateOf(issue.id)).toEqual(before);
  expect((await h.call('POST', `/api/v1/issues/${issue.key}/comments`, { as: writer, body: { body: 'now' } })).status).toBe(201);
});

test('when a PATCH waits on the issue row another session holds, then 503, and the version, history and outbox are unchanged', async () => {
  const { writer, issue } = await setup();
  const before = await stateOf(issue.id);
  const res = await holding(`SELECT 1 FROM issues WHERE id = ${Number(issue.id)} FOR UPDATE`, () =>
    h.call('PATCH', `/api/v1/issues/${issue.key}`, { as: writer, body: { title: 'Blocked', version: 1 } }),
  );
  expect(res).toMatchObject({ status: 503, body: problem(503, 'service_unavailable') });
  expect(res.headers.get('retry-after')).toBe('1');
  expect(await stateOf(issue.id)).toEqual(before);
  expect((await h.call('PATCH', `/api/v1/issues/${issue.key}`, { as: writer, body: { title: 'Free', version: 1 } })).body).toMatchObject({ version: 2 });
});

test('when a read is slow, then 503 with Retry-After rather than a request that hangs', async () => {
  const { writer, issue } = await setup();
  const res = await holding('LOCK TABLE issue_history IN ACCESS EXCLUSIVE MODE', () => h.call('GET', `/api/v1/issues/${issue.key}`, { as: writer }));
  expect(res).toMatchObject({ status: 503, body: problem(503, 'service_unavailable') });
  expect(res.headers.get('retry-after')).toBe('1');
  expect((await h.call('GET', `/api/v1/issues/${issue.key}`, { as: writer })).status).toBe(200);
});
