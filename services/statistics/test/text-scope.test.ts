import { toSearchCriteria, type Filters } from '@tracker/contracts';
import { statisticsSql } from '../src/data-access/replica-reads.repository';
import { issueState, newId, queueState } from './fixtures';
import { startStatistics, type StatisticsHarness, type Workspace } from './harness';

/**
 * The free-text filter is scoped to the caller's workspace inside its subquery: another
 * tenant's matches (here 3,000 issues and 3,000 comments with the same word) never reach
 * the union, the sort or the count of the caller's statistics, and the figures are the
 * caller's alone.
 */
const NOW = new Date('2026-06-15T12:00:00Z');
let h: StatisticsHarness;
let mine: Workspace;
let theirs: Workspace;
const MY_ISSUE_MATCHES = 7;
const MY_COMMENT_MATCHES = 5;

type PlanNode = { 'Node Type': string; 'Actual Rows'?: number; Plans?: PlanNode[]; [key: string]: unknown };
const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

beforeAll(async () => {
  h = await startStatistics({ clock: () => NOW });
  await h.markBuilt(new Date('2026-06-15T11:00:00Z'));
  mine = h.workspace();
  theirs = h.workspace();
  const myQueue = queueState(mine.id, 'MINE');
  const theirQueue = queueState(theirs.id, 'THEIRS');
  const myIssues = [
    ...Array.from({ length: MY_ISSUE_MATCHES }, (_, n) => issueState(myQueue, { title: `zephyr ${n}` })),
    ...Array.from({ length: 20 }, () => issueState(myQueue, { title: 'calm' })),
  ];
  const myComments = myIssues.slice(-MY_COMMENT_MATCHES).map((issue) => ({ id: newId(), issueId: issue.id, body: 'a zephyr again' }));
  const theirIssues = Array.from({ length: 3000 }, (_, n) => issueState(theirQueue, { title: `zephyr storm ${n}`, description: 'zephyr' }));
  const theirComments = theirIssues.map((issue) => ({ id: newId(), issueId: issue.id, body: 'zephyr zephyr' }));
  await h.seed({ queues: [myQueue, theirQueue], issues: [...myIssues, ...theirIssues], comments: [...myComments, ...theirComments] });
  await h.schema.query('ANALYZE');
}, 60_000);
afterAll(() => h.close());

const criteria = (filters: Filters) => toSearchCriteria(filters, { userId: mine.admin.id, workspaceId: mine.id }, null, NOW);

describe('free text in statistics', () => {
  test('when another workspace has thousands of matches, then the caller counts only their own', async () => {
    const res = await h.call('POST', '/api/v1/statistics', { as: mine.admin, body: { search: 'zephyr' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: MY_ISSUE_MATCHES + MY_COMMENT_MATCHES, truncated: false, progress: { total: MY_ISSUE_MATCHES + MY_COMMENT_MATCHES } });
    const other = await h.call('POST', '/api/v1/statistics', { as: theirs.admin, body: { search: 'zephyr' } });
    expect(other.body).toMatchObject({ total: 3000 });
  });

  test('then both text branches of the statement carry the workspace condition, inside the subquery', () => {
    const sql = statisticsSql(criteria({ search: 'zephyr', mine: false, overdue: false }));
    const subquery = sql.text.slice(sql.text.indexOf('i.id IN ('));
    const branches = subquery.split('UNION');
    expect(branches).toHaveLength(2);
    for (const branch of branches) {
      expect(branch).toMatch(/i\.workspace_id = \$\d+/);
      expect(branch).toContain('search_vector @@');
    }
    expect(sql.values).toContain(mine.id);
  });

  test('when the statement runs, then the union of text matches holds only the caller\'s matches, never the other tenant\'s 6,000', async () => {
    const sql = statisticsSql(criteria({ search: 'zephyr', mine: false, overdue: false }));
    const [row] = await h.schema.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql.text}`, sql.values);
    const plan = nodes(row!['QUERY PLAN'][0]!.Plan);
    const unions = plan.filter((n) => n['Node Type'] === 'Append');
    expect(unions.length).toBeGreaterThan(0);
    for (const union of unions) expect(union['Actual Rows']).toBeLessThanOrEqual(MY_ISSUE_MATCHES + MY_COMMENT_MATCHES);
    // Before, `i.id IN (SELECT id FROM issues WHERE search_vector @@ … UNION SELECT issue_id FROM comments WHERE …)`
    // put every tenant's 6,012 matching ids into that union.
    const text = JSON.stringify(plan);
    expect(text).toContain('workspace_id');
  });
});
