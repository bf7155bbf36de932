import { Issue, SEARCH_TRUNCATED_HEADER } from '@tracker/contracts';
import { searchSql } from '../src/data-access/search.repository';
import { toSearchCriteria } from '@tracker/contracts';
import { problem, useIssuesService, type Member, type Workspace } from './harness';

const h = useIssuesService();

const search = (as: Member, body: unknown) => h.call('POST', '/api/v1/issues/search', { as, body });
const keys = (res: { body: Array<{ key: string }> }) => res.body.map((i) => i.key).sort();

/**
 * One workspace with a readable and a hidden queue for `member`, and issues that
 * differ in one field each, so every filter can be checked alone and combined.
 */
let ws: Workspace;
let member: Member;
let other: Member;
let readable: any;
let hidden: any;
let status: Record<string, number>;
const issues: Record<string, any> = {};

beforeAll(async () => {
  ws = await h.workspace();
  readable = await h.queue(ws, { key: 'SRCH' });
  hidden = await h.queue(ws, { key: 'HIDE' });
  member = h.member(ws.id);
  other = h.member(ws.id);
  h.grant(member, readable.id, 'read-write');
  status = Object.fromEntries(readable.statuses.map((s: { name: string; id: number }) => [s.name, s.id]));
  const make = async (name: string, fields: Record<string, unknown>, queue = readable) => {
    issues[name] = await h.issue(ws.admin, queue.id, { title: name, ...fields });
  };
  await make('plain', {});
  await make('titled', { title: 'Database migration stuck' });
  await make('described', { description: 'The replica lags behind during backups' });
  await make('commented', {});
  await make('mine', { assignee_id: member.id });
  await make('theirs', { assignee_id: other.id });
  await make('urgent', { priority: 'critical' });
  await make('labelled', { labels: ['infra', 'db'] });
  await make('overdue', { due_date: '2001-01-01' });
  await make('overdueDone', { due_date: '2001-01-01' });
  await make('future', { due_date: '2999-01-01' });
  await make('progressing', {});
  await make('secret', { title: 'Database secret' }, hidden);
  await h.call('POST', `/api/v1/issues/${issues.commented.key}/comments`, { as: ws.admin, body: { body: 'Root cause: expired certificate' } });
  await h.call('PATCH', `/api/v1/issues/${issues.overdueDone.key}`, { as: ws.admin, body: { status_id: status.Done } });
  await h.call('PATCH', `/api/v1/issues/${issues.progressing.key}`, { as: ws.admin, body: { status_id: status['In progress'] } });
});

describe('POST /api/v1/issues/search', () => {
  test('when the filters are empty, then every issue of readable queues comes back, most recently updated first', async () => {
    const res = await search(member, {});
    expect(res.status).toBe(200);
    expect(res.body.every((i: unknown) => Issue.parse(i))).toBe(true);
    expect(res.body).toHaveLength(12);
    expect(res.body.some((i: { queue_id: number }) => i.queue_id === hidden.id)).toBe(false);
    const times = res.body.map((i: { updated_at: string }) => i.updated_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(res.body[0].key).toBe(issues.progressing.key);
    expect(Object.keys(res.body[0])).not.toContain('comments');
  });

  test('when a workspace admin searches, then issues of every queue come back; another workspace sees none of them', async () => {
    expect((await search(ws.admin, {})).body).toHaveLength(13);
    const stranger = await h.workspace();
    expect((await search(stranger.admin, {})).body).toEqual([]);
  });

  test.each([
    ['a word of the title, in any case', { search: 'DATABASE' }, ['titled']],
    ['a phrase of the description', { search: '"replica lags"' }, ['described']],
    ['a word of a comment', { search: 'certificate' }, ['commented']],
    ['an issue key', { search: 'srch-2' }, ['titled']],
    ['two words that must both match', { search: 'database stuck' }, ['titled']],
    ['a word nobody wrote', { search: 'kubernetes' }, []],
    ['a blank search (no filter)', { search: '   ' }, null],
    ['a null search (no filter)', { search: null }, null],
    ['mine', { mine: true }, ['mine']],
    ['assignee_ids', () => ({ assignee_ids: [other.id] }), ['theirs']],
    ['priority', { priority: 'critical' }, ['urgent']],
    ['label', { label: 'db' }, ['labelled']],
    ['category progress', { category: 'progress' }, ['progressing']],
    ['category done', { category: 'done' }, ['overdueDone']],
    ['overdue (due before today and not done)', { overdue: true }, ['overdue']],
    ['mine false, overdue false and nulls (no filters)', { mine: false, overdue: false, priority: null, category: null, label: null }, null],
  ])('when searching by %s, then exactly the matching issues come back', async (_label, filters, expected) => {
    const body = typeof filters === 'function' ? (filters as () => object)() : filters;
    const res = await search(member, body);
    expect(res.status).toBe(200);
    if (expected === null) expect(res.body).toHaveLength(12);
    else expect(keys(res)).toEqual(expected.map((name) => issues[name].key).sort());
  });

  test('when searching by status_ids or queue_ids, then only issues in those come back', async () => {
    expect(keys(await search(member, { status_ids: [status['In progress'], status.Done] }))).toEqual([issues.overdueDone.key, issues.progressing.key].sort());
    expect(await search(member, { queue_ids: [readable.id] })).toMatchObject({ status: 200, body: expect.any(Array) });
    expect((await search(member, { queue_ids: [readable.id] })).body).toHaveLength(12);
    expect(keys(await search(ws.admin, { queue_ids: [hidden.id] }))).toEqual([issues.secret.key]);
  });

  test('when filters are combined, then they all apply together', async () => {
    expect(keys(await search(member, { search: 'database', queue_ids: [readable.id], category: 'open', priority: 'normal' }))).toEqual([issues.titled.key]);
    expect(keys(await search(member, { search: 'database', priority: 'critical' }))).toEqual([]);
    expect(keys(await search(member, { mine: true, assignee_ids: [other.id] }))).toEqual([]);
    expect(keys(await search(ws.admin, { search: 'database' }))).toEqual([issues.secret.key, issues.titled.key].sort());
  });

  test('when text and a category are combined, then issues of that category match in every queue of the workspace, by their own text or a comment, and none of another workspace', async () => {
    // The category is each matching issue's own status's, in whichever queue; the workspace bounds it.
    const team = await h.workspace();
    const [first, second] = [await h.queue(team, { key: 'CATA' }), await h.queue(team, { key: 'CATB' })];
    const statusOf = (queue: any, name: string) => queue.statuses.find((s: { name: string }) => s.name === name).id;
    const open = await h.issue(team.admin, first.id, { title: 'Lighthouse open' });
    const moving = await h.issue(team.admin, second.id, { title: 'Lighthouse moving' });
    const openElsewhere = await h.issue(team.admin, second.id, { title: 'Lighthouse elsewhere' });
    const byComment = await h.issue(team.admin, first.id, { title: 'Quiet one' });
    await h.call('POST', `/api/v1/issues/${byComment.key}/comments`, { as: team.admin, body: { body: 'the lighthouse again' } });
    await h.call('PATCH', `/api/v1/issues/${moving.key}`, { as: team.admin, body: { status_id: statusOf(second, 'In progress') } });
    const outsider = await h.workspace();
    const foreign = await h.issue(outsider.admin, (await h.queue(outsider, { key: 'CATX' })).id, { title: 'Lighthouse foreign' });

    const found = async (category: string) => keys(await search(team.admin, { search: 'lighthouse', category }));
    expect(await found('open')).toEqual([open.key, openElsewhere.key, byComment.key].sort());
    expect(await found('progress')).toEqual([moving.key]);
    expect(await found('done')).toEqual([]);
    expect(keys(await search(outsider.admin, { search: 'lighthouse', category: 'open' }))).toEqual([foreign.key]);
    // With overdue beside it (the joined status's category): none of them is due.
    expect(keys(await search(team.admin, { search: 'lighthouse', category: 'open', overdue: true }))).toEqual([]);
  });

  test('when a comment lands on an older issue, then it moves to the top', async () => {
    await h.call('POST', `/api/v1/issues/${issues.plain.key}/comments`, { as: ws.admin, body: { body: 'bump' } });
    expect((await search(member, {})).body[0].key).toBe(issues.plain.key);
  });

  test('when queue_ids name a hidden, unknown or foreign queue, then the same 403', async () => {
    const foreign = await h.queue(await h.workspace());
    const bodies = new Set<string>();
    for (const ids of [[hidden.id], [readable.id, hidden.id], [2_000_000_000], [foreign.id]]) {
      const res = await search(member, { queue_ids: ids });
      expect(res.status).toBe(403);
      bodies.add(JSON.stringify(res.body));
    }
    expect(bodies.size).toBe(1);
    expect(JSON.parse([...bodies][0]!)).toEqual(problem(403, 'forbidden'));
  });

  test.each([
    ['a queue id of 0', 'queue_ids.0', { queue_ids: [0] }],
    ['a string status id', 'status_ids.0', { status_ids: ['1'] }],
    ['101 queue ids', 'queue_ids', { queue_ids: Array.from({ length: 101 }, (_, i) => i + 1) }],
    ['101 status ids', 'status_ids', { status_ids: Array.from({ length: 101 }, (_, i) => i + 1) }],
    ['101 assignee ids', 'assignee_ids', { assignee_ids: Array.from({ length: 101 }, (_, i) => i + 1) }],
    ['an unknown priority', 'priority', { priority: 'urgent' }],
    ['an unknown category', 'category', { category: 'closed' }],
    ['a string mine', 'mine', { mine: 'yes' }],
    ['a search over 500 characters', 'search', { search: 's'.repeat(501) }],
    ['an empty label', 'label', { label: '' }],
    ['an unknown field', 'sort', { sort: 'title' }],
  ])('when the filters have %s, then 422 at %s', async (_label, path, body) => {
    const res = await search(member, body);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
  });

  test('when the search text is only punctuation or search syntax, then 200 with no error', async () => {
    for (const text of ['!!!', '"', '-', 'or', '(a & b) | !c', "'; DROP TABLE issues; --"]) {
      const res = await search(member, { search: text });
      expect(res.status).toBe(200);
    }
  });
});

describe('an empty id list selects nothing', () => {
  const LISTS = ['queue_ids', 'status_ids', 'assignee_ids'] as const;
  const nothing = async (as: Member, body: unknown) => {
    const res = await search(as, body);
    return { status: res.status, body: res.body, truncated: res.headers.get(SEARCH_TRUNCATED_HEADER) };
  };
  const NOTHING = { status: 200, body: [], truncated: 'false' };

  test.each(LISTS)('when %s is [], then 200 with [] for a member and a workspace admin, and no query runs; absent, it does not filter', async (list) => {
    const { store } = h.service.deps;
    const searched = jest.spyOn(store.search, 'search');
    const queuesLooked = jest.spyOn(store.queues, 'idsInWorkspace');
    try {
      expect(await nothing(member, { [list]: [] })).toEqual(NOTHING);
      expect(await nothing(ws.admin, { [list]: [] })).toEqual(NOTHING);
      expect(searched).not.toHaveBeenCalled();
      expect(queuesLooked).not.toHaveBeenCalled();
    } finally {
      searched.mockRestore();
      queuesLooked.mockRestore();
    }
    expect((await search(member, {})).body).toHaveLength(12);
    expect((await search(ws.admin, {})).body).toHaveLength(13);
  });

  test.each(LISTS)('when %s is [] beside filters that match issues, then still nothing', async (list) => {
    const matching = { search: 'database', queue_ids: [readable.id], status_ids: [status.Open!], priority: 'normal' };
    expect(keys(await search(ws.admin, matching))).toEqual([issues.titled.key]);
    expect(await nothing(ws.admin, { ...matching, [list]: [] })).toEqual(NOTHING);
    expect((await search(member, { category: 'open' })).body.length).toBeGreaterThan(0);
    expect(await nothing(member, { category: 'open', [list]: [] })).toEqual(NOTHING);
  });

  test('when criteria with an empty list reach the store, then it finds nothing without a query, and their SQL would find nothing either', async () => {
    const none = { mine: false, overdue: false };
    for (const filters of [{ ...none, queue_ids: [] }, { ...none, status_ids: [] }, { ...none, assignee_ids: [] }]) {
      const criteria = toSearchCriteria(filters, { userId: ws.admin.id, workspaceId: ws.id }, null, new Date());
      expect(await h.service.deps.store.search.search(criteria)).toEqual([]);
      const sql = searchSql(criteria);
      expect(await h.schema.query(sql.text, sql.values)).toEqual([]);
    }
  });

  test('when queue_ids names a hidden queue and another list is empty, then the same 403 (named queues are still checked)', async () => {
    expect(await search(member, { queue_ids: [hidden.id], status_ids: [] })).toMatchObject({ status: 403, body: problem(403, 'forbidden') });
    expect(await nothing(member, { queue_ids: [readable.id], assignee_ids: [] })).toEqual(NOTHING);
  });
});

describe('search over many issues', () => {
  const BULK = 20_000;
  let bulk: Workspace;
  let queue: any;

  beforeAll(async () => {
    bulk = await h.workspace();
    queue = await h.queue(bulk, { key: 'BULK' });
    // One statement instead of 20,000 requests; the trigger fills search_vector as for any insert.
    await h.schema.query(
      `INSERT INTO issues (workspace_id, queue_id, number, key, title, description, status_id, position, created_by, created_at, updated_at)
       SELECT $1, $2, n, 'BULK-' || n, 'Bulk issue ' || n, CASE WHEN n % 1000 = 0 THEN 'needle' ELSE 'hay' END, $3, n, $4,
              now(), now() - make_interval(secs => n)
       FROM generate_series(1, ${BULK}) AS n`,
      [bulk.id, queue.id, queue.statuses[0].id, bulk.admin.id],
    );
    await h.schema.query(
      `INSERT INTO comments (issue_id, author_id, body)
       SELECT id, $2, CASE WHEN number % 1000 = 500 THEN 'thread about a needle' ELSE 'more hay' END
       FROM issues WHERE queue_id = $1`,
      [queue.id, bulk.admin.id],
    );
    await h.schema.query('UPDATE queues SET issue_counter = $1 WHERE id = $2', [BULK, queue.id]);
    await h.schema.query('VACUUM ANALYZE issues');
    await h.schema.query('VACUUM ANALYZE comments');
  }, 60_000);

  test('when more than 2000 issues match, then exactly the 2000 most recently updated come back', async () => {
    const res = await search(bulk.admin, {});
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2000);
    expect(res.body[0].key).toBe('BULK-1');
    expect(res.body[1999].key).toBe('BULK-2000');
    // The list is the same array as ever; the headers tell the count (up to the cap) and the cut.
    expect(res.headers.get('x-total-count')).toBe('2000');
    expect(res.headers.get('x-truncated')).toBe('true');
    expect(res.headers.get('search-truncated')).toBe('true');
  });

  test('when fewer than 2000 issues match, then the answer says nothing was cut', async () => {
    const res = await search(bulk.admin, { search: 'needle' });
    expect(res.body.length).toBeGreaterThan(0);
    expect(res.body.length).toBeLessThan(2000);
    expect(res.headers.get('x-total-count')).toBe(String(res.body.length));
    expect(res.headers.get('x-truncated')).toBe('false');
    expect(res.headers.get('search-truncated')).toBe('false');
  });

  test('when a rare word is searched among 20000 issues, then the plan reads the full-text GIN indexes, not the whole table', async () => {
    const sql = searchSql(toSearchCriteria({ search: 'needle', mine: false, overdue: false }, { userId: bulk.admin.id, workspaceId: bulk.id }, null, new Date()));
    const plan = (await h.schema.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql.text}`, sql.values)).map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toMatch(/Bitmap Index Scan on issues_search_vector_idx/);
    expect(plan).toMatch(/Bitmap Index Scan on comments_search_vector_idx/);
    expect(plan).not.toMatch(/Seq Scan on (issues|comments)/);
    // Matches in descriptions (n % 1000 = 0) and in comments (n % 1000 = 500).
    const res = await search(bulk.admin, { search: 'needle' });
    expect(res.body).toHaveLength((2 * BULK) / 1000);
  });
});
