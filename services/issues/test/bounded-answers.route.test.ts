import { IssueDetails, IssueSummary, ISSUE_LIMITS, ISSUE_READ_LIMITS, SNAPSHOT_LIMITS } from '@tracker/contracts';
import { DOCUMENTED } from './answer-bounds';
import { problem, useIssuesService } from './harness';

/**
 * No answer grows with what one user piles onto an issue (docs/decisions.md: Limits): the issue read,
 * search rows and the statistics snapshot pages stay within their documented sizes, history
 * keeps at most 1,000 characters of a text, and an issue holds at most 5,000 comments and
 * 10,000 worklogs.
 */
const h = useIssuesService();

async function setup() {
  const { ws, queue, writer } = await h.writableQueue();
  return { ws, queue, writer };
}

const bytesOf = (body: unknown) => Buffer.byteLength(JSON.stringify(body));
const text = (n: number, char: string) => char.repeat(n);

describe('one issue grown by one read-write user', () => {
  test('when 60 comments of 50,000 characters, 55 worklogs and 12 description edits of 100,000 characters are added, then the read stays within the documented cap', async () => {
    const { queue, writer } = await setup();
    const issue = await h.issue(writer, queue.id, { description: text(ISSUE_LIMITS.description, 'd') });
    for (let n = 0; n < 60; n++) {
      const res = await h.call('POST', `/api/v1/issues/${issue.key}/comments`, { as: writer, body: { body: text(ISSUE_LIMITS.comment, String.fromCharCode(97 + (n % 26))) } });
      expect(res.status).toBe(201);
    }
    for (let n = 0; n < 55; n++) {
      expect((await h.call('POST', `/api/v1/issues/${issue.key}/worklogs`, { as: writer, body: { minutes: 1, description: text(ISSUE_LIMITS.worklogDescription, 'w') } })).status).toBe(201);
    }
    for (let n = 0; n < 12; n++) {
      const res = await h.call('PATCH', `/api/v1/issues/${issue.key}`, { as: writer, body: { description: text(ISSUE_LIMITS.description, n % 2 ? 'x' : 'y') } });
      expect(res.status).toBe(200);
    }
    // 60 × 50,000 + 55 × 10,000 + 13 descriptions: 3.6 million characters stored, and growing with every request.
    const read = await h.call('GET', `/api/v1/issues/${issue.key}`, { as: writer });
    expect(read.status).toBe(200);
    expect(IssueDetails.parse(read.body)).toEqual(read.body);
    const size = bytesOf(read.body);
    expect(size).toBeLessThanOrEqual(DOCUMENTED.plain.read);
    // 50 comments of 50,000, 50 worklogs of 10,000, the description and 13 history entries of at most 2 × 1,000.
    expect(size).toBeLessThan(50 * 50_000 + 50 * 10_000 + 100_000 + 13 * 2_500 + 60_000);
    expect([read.body.comments.length, read.body.worklogs.length, read.body.history.length]).toEqual([50, 50, 13]);
    expect([read.body.comments_total, read.body.worklogs_total, read.body.history_total]).toEqual([60, 55, 13]);
    expect(read.body.description).toHaveLength(ISSUE_LIMITS.description);

    // History: 1,000 characters of each version, marked.
    const edits = read.body.history.filter((e: { field: string }) => e.field === 'description');
    expect(edits).toHaveLength(12);
    for (const e of edits) {
      expect([e.from.length, e.to.length, e.from_truncated, e.to_truncated]).toEqual([1000, 1000, true, true]);
    }
    expect(edits[0].from).toBe('d'.repeat(1000));
    expect(edits[11].to).toBe('x'.repeat(1000));
    // Stored: 1,001 characters (the mark), not 100,000.
    const [stored] = await h.schema.query<{ longest: number }>(
      `SELECT max(greatest(length("from" #>> '{}'), length("to" #>> '{}')))::int AS longest FROM issue_history WHERE issue_id = $1`,
      [issue.id],
    );
    expect(stored!.longest).toBe(ISSUE_READ_LIMITS.historyText + 1);
    // The event's changes are what history shows; its issue state carries the whole new text.
    const updates = (await h.outbox('issue', issue.id)).filter((e) => e.type === 'issue.updated');
    expect(updates).toHaveLength(12);
    expect(updates[11]!.payload.data.changes).toEqual([
      { field: 'description', from: 'y'.repeat(1000), to: 'x'.repeat(1000), from_truncated: true, to_truncated: true },
    ]);
    expect(updates[11]!.payload.data.issue.description).toHaveLength(ISSUE_LIMITS.description);
  }, 120_000);

  test('when history rows were written before the rule (whole texts), then they read cut and marked too', async () => {
    const { queue, writer } = await setup();
    const issue = await h.issue(writer, queue.id);
    await h.schema.query(
      `INSERT INTO issue_history (issue_id, actor_id, at, field, "from", "to") VALUES ($1, $2, now(), 'description', to_jsonb($3::text), to_jsonb($4::text))`,
      [issue.id, writer.id, 'o'.repeat(5000), 'n'.repeat(1000)],
    );
    const read = await h.call('GET', `/api/v1/issues/${issue.key}`, { as: writer });
    expect(read.body.history[1]).toMatchObject({ field: 'description', from: 'o'.repeat(1000), to: 'n'.repeat(1000), from_truncated: true, to_truncated: false });
    const page = await h.call('GET', `/api/v1/issues/${issue.key}/history`, { as: writer });
    expect(page.body.items[1]).toEqual(read.body.history[1]);
  });
});

describe('comments and worklogs per issue', () => {
  const fill = (table: 'comments' | 'worklogs', issueId: number, authorId: number, count: number) =>
    h.schema.query(
      table === 'comments'
        ? `INSERT INTO comments (issue_id, author_id, body, created_at) SELECT $1, $2, 'filler', now() FROM generate_series(1, $3)`
        : `INSERT INTO worklogs (issue_id, author_id, minutes, description, created_at) SELECT $1, $2, 1, '', now() FROM generate_series(1, $3)`,
      [issueId, authorId, count],
    );
  const state = async (issueId: number) =>
    (
      await h.schema.query<{ revision: number; updated_at: Date; spent_minutes: number; comments: number; worklogs: number; events: number }>(
        `SELECT revision, updated_at, spent_minutes, (SELECT count(*)::int FROM comments WHERE issue_id = $1) AS comments,
                (SELECT count(*)::int FROM worklogs WHERE issue_id = $1) AS worklogs, (SELECT count(*)::int FROM outbox_events) AS events
           FROM issues WHERE id = $1`,
        [issueId],
      )
    )[0];

  test('when an issue holds 5,000 comments, then the next one is 422 at (body) and changes nothing', async () => {
    const { queue, writer } = await setup();
    const issue = await h.issue(writer, queue.id);
    await fill('comments', issue.id, writer.id, ISSUE_LIMITS.commentsPerIssue - 1);
    expect((await h.call('POST', `/api/v1/issues/${issue.key}/comments`, { as: writer, body: { body: 'the last one' } })).status).toBe(201);
    const before = await state(issue.id);
    const res = await h.call('POST', `/api/v1/issues/${issue.key}/comments`, { as: writer, body: { body: 'one too many' } });
    expect(res).toMatchObject({ status: 422, body: problem(422, 'validation_failed') });
    expect(res.body.errors).toEqual([{ path: '(body)', message: 'an issue holds at most 5000 comments, and this one is full' }]);
    expect(await state(issue.id)).toEqual(before);
    // The read stays as bounded as ever, and counts them.
    const read = await h.call('GET', `/api/v1/issues/${issue.key}`, { as: writer });
    expect([read.body.comments.length, read.body.comments_total]).toEqual([50, 5000]);
  });

  test.each([
    ['comments', ISSUE_LIMITS.commentsPerIssue, { body: 'racing for the last places' }],
    ['worklogs', ISSUE_LIMITS.worklogsPerIssue, { minutes: 5 }],
  ] as const)('when 6 %s race for the last 2 places of an issue, then 2 are added and 4 are 422, and it holds the cap', async (list, cap, body) => {
    const { queue, writer } = await setup();
    const issue = await h.issue(writer, queue.id);
    await fill(list, issue.id, writer.id, cap - 2);
    const before = await state(issue.id);
    const replies = await Promise.all(Array.from({ length: 6 }, () => h.call('POST', `/api/v1/issues/${issue.key}/${list}`, { as: writer, body })));
    expect(replies.map((r) => r.status).sort()).toEqual([201, 201, 422, 422, 422, 422]);
    // Only the two added ones left a trace: their rows, revisions and events.
    const after = await state(issue.id);
    expect([after[list], after.revision, after.events]).toEqual([cap, before.revision + 2, before.events + 2]);
    expect((await h.call('GET', `/api/v1/issues/${issue.key}`, { as: writer })).body[`${list}_total`]).toBe(cap);
  });

  test('when an issue holds 10,000 worklogs, then the next one is 422 at (body) and changes nothing', async () => {
    const { queue, writer } = await setup();
    const issue = await h.issue(writer, queue.id);
    await fill('worklogs', issue.id, writer.id, ISSUE_LIMITS.worklogsPerIssue - 1);
    expect((await h.call('POST', `/api/v1/issues/${issue.key}/worklogs`, { as: writer, body: { minutes: 5 } })).status).toBe(201);
    const before = await state(issue.id);
    const res = await h.call('POST', `/api/v1/issues/${issue.key}/worklogs`, { as: writer, body: { minutes: 5 } });
    expect(res).toMatchObject({ status: 422, body: problem(422, 'validation_failed') });
    expect(res.body.errors).toEqual([{ path: '(body)', message: 'an issue holds at most 10000 worklogs, and this one is full' }]);
    expect(await state(issue.id)).toEqual(before);
    expect((await h.call('GET', `/api/v1/issues/${issue.key}`, { as: writer })).body.worklogs_total).toBe(10_000);
  });
});

describe('search rows', () => {
  test('when issues have 100,000-character descriptions, then search rows carry 500 characters and say so, and the answer stays small', async () => {
    const { queue, writer } = await setup();
    const long = await h.issue(writer, queue.id, { title: 'Long one', description: `${'lorem '.repeat(16_000)}tail.`.padEnd(ISSUE_LIMITS.description, '.') });
    const short = await h.issue(writer, queue.id, { title: 'Short one', description: 'brief' });
    const exact = await h.issue(writer, queue.id, { title: 'Exact one', description: '😀'.repeat(250) });
    const justOver = await h.issue(writer, queue.id, { title: 'Over one', description: text(501, 'o') });
    for (let n = 0; n < 20; n++) await h.issue(writer, queue.id, { description: text(ISSUE_LIMITS.description, 'm') });

    const res = await h.call('POST', '/api/v1/issues/search', { as: writer, body: { queue_ids: [queue.id] } });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(24);
    const byKey = new Map(res.body.map((row: any) => [row.key, row]));
    expect(byKey.get(long.key)).toEqual({ ...long, description: long.description.slice(0, 500), description_truncated: true });
    expect(byKey.get(short.key)).toEqual({ ...short, description_truncated: false });
    // 500 characters of 2 UTF-16 units each: whole characters, not cut.
    expect(byKey.get(exact.key)).toMatchObject({ description: '😀'.repeat(250), description_truncated: false });
    expect(byKey.get(justOver.key)).toMatchObject({ description: 'o'.repeat(500), description_truncated: true });
    for (const row of res.body) expect(IssueSummary.parse(row)).toEqual(row);
    for (const row of res.body) expect(bytesOf(row)).toBeLessThanOrEqual(DOCUMENTED.plain.searchRow);
    // 20 descriptions of 100,000 characters used to make this a 2 MB answer.
    expect(bytesOf(res.body)).toBeLessThan(24 * 1200);

    // Free text still matches the whole description (and the issue read has all of it).
    const found = await h.call('POST', '/api/v1/issues/search', { as: writer, body: { queue_ids: [queue.id], search: 'tail' } });
    expect(found.body.map((row: { key: string }) => row.key)).toEqual([long.key]);
    expect((await h.call('GET', `/api/v1/issues/${long.key}`, { as: writer })).body.description).toHaveLength(ISSUE_LIMITS.description);
  });
});

describe('snapshot pages for the statistics replica', () => {
  const get = (path: string) => h.call('GET', path, { service: 'statistics' });

  async function walk(what: 'issues' | 'comments', from: number) {
    const pages: any[] = [];
    let after = from;
    for (;;) {
      const res = await get(`/internal/snapshot/${what}?after_id=${after}&limit=1000`);
      expect(res.status).toBe(200);
      pages.push(res.body);
      if (res.body.next_after_id === null) break;
      after = res.body.next_after_id;
    }
    return pages;
  }

  test('when issues and comments are large, then every page stays within 1 MiB of text, and the walk still brings every row once', async () => {
    const { queue, writer } = await setup();
    const issues: any[] = [];
    for (let n = 0; n < 25; n++) issues.push(await h.issue(writer, queue.id, { description: text(ISSUE_LIMITS.description, 'p') }));
    for (let n = 0; n < 45; n++) {
      expect((await h.call('POST', `/api/v1/issues/${issues[n % 3]!.key}/comments`, { as: writer, body: { body: text(ISSUE_LIMITS.comment, 'c') } })).status).toBe(201);
    }
    const firstId = issues[0]!.id - 1;

    const issuePages = await walk('issues', firstId);
    const seen = issuePages.flatMap((p) => p.issues.map((row: any) => row.issue.id));
    expect(seen.filter((id: number) => issues.some((i) => i.id === id))).toEqual(issues.map((i) => i.id));
    expect(new Set(seen).size).toBe(seen.length);
    // 25 × 100,000 bytes: pages of at most 10 rows, never 1 MiB of JSON.
    expect(issuePages.length).toBeGreaterThanOrEqual(3);
    for (const page of issuePages) expect(bytesOf(page)).toBeLessThanOrEqual(SNAPSHOT_LIMITS.pageBytes);
    expect(issuePages.every((p) => p.issues.every((row: any) => Object.keys(row).sort().join() === 'issue,revision'))).toBe(true);

    const commentPages = await walk('comments', 0);
    const comments = commentPages.flatMap((p) => p.comments);
    const ours = comments.filter((c: any) => issues.some((i) => i.id === c.issue_id));
    expect(ours).toHaveLength(45);
    expect(new Set(comments.map((c: any) => c.id)).size).toBe(comments.length);
    expect(ours.every((c: any) => c.body.length === ISSUE_LIMITS.comment)).toBe(true);
    expect(commentPages.length).toBeGreaterThanOrEqual(3);
    for (const page of commentPages) expect(bytesOf(page)).toBeLessThanOrEqual(SNAPSHOT_LIMITS.pageBytes);
  }, 60_000);

  test('when rows are 300 KB each (100,000 three-byte characters), then a page holds three of them and the walk goes on', async () => {
    const { queue, writer } = await setup();
    const big: any[] = [];
    for (let n = 0; n < 5; n++) big.push(await h.issue(writer, queue.id, { description: text(ISSUE_LIMITS.description, '€') }));
    const pages = await walk('issues', big[0]!.id - 1);
    expect(pages.map((p) => p.issues.length)).toEqual([3, 2]);
    for (const page of pages) expect(bytesOf(page)).toBeLessThanOrEqual(SNAPSHOT_LIMITS.pageBytes);
  });
});
