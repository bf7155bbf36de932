import { Redis } from 'ioredis';
import { StatisticsResult } from '@tracker/contracts';
import { devSigningKey } from '@tracker/signing';
import { aclCacheKey, CACHE_FRESH_KEY, signCacheEntry } from '@tracker/authz';
import { testRedisUrl } from '@tracker/testing';
import type { IssueStateData, QueueStateData } from '../src/domain/replica';
import { issueState, newId, queueState, rng, type Rng } from './fixtures';
import { problem, startStatistics, type Member, type StatisticsHarness, type Workspace } from './harness';

/**
 * Figures checked against counts computed here, in plain JavaScript over the generated
 * rows, for many filter combinations. Rows go straight into the replica tables.
 */
const NOW = new Date('2026-06-15T12:00:00Z');
const SNAPSHOT_AT = new Date('2026-06-15T11:00:00Z');

/** The answer when nothing is selected: every figure zero, nothing cut. */
const ZERO = {
  total: 0,
  truncated: false,
  as_of: SNAPSHOT_AT.toISOString(),
  progress: { open: 0, progress: 0, done: 0, total: 0, done_percent: 0 },
  time: { estimate_minutes: 0, spent_minutes: 0 },
  queues: [],
  assignees: [],
};
const WORDS = ['falcon', 'harbor', 'quartz', 'meadow', 'lantern'];
const LABELS = ['red', 'blue', 'green'];
const DUE = ['2020-01-01', '2026-06-14', '2026-06-15', '2026-06-16', null];

let h: StatisticsHarness;
let redis: Redis;
const seed = Date.now() % 100_000;
const r = rng(seed);

interface Data {
  issues: IssueStateData[];
  comments: Array<{ id: number; issueId: number; body: string }>;
  queues: QueueStateData[];
}

let ws: Workspace;
let member: Member;
let outsider: Member;
let qa: QueueStateData, qb: QueueStateData, qc: QueueStateData;
let main: Data;

let big: Workspace;
let bigQueue: QueueStateData;
let bigData: Data;
let exact: Workspace;
let exactData: Data;

function generate(r: Rng, queues: QueueStateData[], count: number, assignees: Array<number | null>, withText: boolean): Data {
  const issues: IssueStateData[] = [];
  const comments: Data['comments'] = [];
  for (let n = 0; n < count; n++) {
    const queue = r.pick(queues);
    const status = r.pick(queue.statuses);
    const updated = new Date(Date.UTC(2026, 0, 1) + r.int(0, 1_000_000) * 1000).toISOString();
    const issue = issueState(queue, {
      title: withText ? `${r.pick(WORDS)} ${r.pick(WORDS)} task` : 'task',
      description: withText && r.chance(0.5) ? `notes on ${r.pick(WORDS)}` : '',
      status_id: status.id,
      status_category: status.category,
      assignee_id: r.pick(assignees),
      priority: r.pick(['low', 'normal', 'high', 'critical'] as const),
      labels: LABELS.filter(() => r.chance(0.3)),
      due_date: r.pick(DUE),
      estimate_minutes: r.int(0, 900),
      spent_minutes: r.chance(0.3) ? 0 : r.int(1, 3000),
      updated_at: updated,
      created_at: updated,
    });
    issues.push(issue);
    if (withText && r.chance(0.3)) comments.push({ id: newId(), issueId: issue.id, body: `seen ${r.pick(WORDS)} ${r.pick(WORDS)}` });
  }
  return { issues, comments, queues };
}

/** What the 'simple' text search matches: every word of the query in one document (the issue's text, or one comment). */
const words = (text: string) => text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
function matchesText(issue: IssueStateData, comments: Data['comments'], query: string): boolean {
  const wanted = words(query);
  const docs = [`${issue.key} ${issue.title} ${issue.description ?? ''}`, ...comments.filter((c) => c.issueId === issue.id).map((c) => c.body)];
  return docs.some((doc) => wanted.every((w) => words(doc).includes(w)));
}

/** The expected answer, computed without the database. */
function expected(data: Data, caller: Member, readable: number[], filters: Record<string, any>) {
  const today = NOW.toISOString().slice(0, 10);
  const matched = data.issues
    .filter((i) => i.workspace_id === caller.workspaceId && readable.includes(i.queue_id))
    // An id list holds the only ids allowed: an empty one allows none; absent, it does not filter.
    .filter((i) => filters.queue_ids === undefined || filters.queue_ids.includes(i.queue_id))
    .filter((i) => filters.status_ids === undefined || filters.status_ids.includes(i.status_id))
    .filter((i) => filters.assignee_ids === undefined || filters.assignee_ids.includes(i.assignee_id))
    .filter((i) => !filters.mine || i.assignee_id === caller.id)
    .filter((i) => !filters.priority || i.priority === filters.priority)
    .filter((i) => !filters.category || i.status_category === filters.category)
    .filter((i) => !filters.overdue || (i.due_date !== null && i.due_date < today && i.status_category !== 'done'))
    .filter((i) => !filters.label || i.labels.includes(filters.label))
    .filter((i) => !filters.search?.trim() || matchesText(i, data.comments, filters.search))
    .sort((a, b) => (a.updated_at === b.updated_at ? b.id - a.id : a.updated_at < b.updated_at ? 1 : -1));
  const used = matched.slice(0, 2000);
  const figures = (rows: IssueStateData[]) => ({
    open: rows.filter((i) => i.status_category === 'open').length,
    progress: rows.filter((i) => i.status_category === 'progress').length,
    done: rows.filter((i) => i.status_category === 'done').length,
    total: rows.length,
  });
  const minutes = (rows: IssueStateData[]) => ({
    estimate_minutes: rows.reduce((s, i) => s + i.estimate_minutes, 0),
    spent_minutes: rows.reduce((s, i) => s + i.spent_minutes, 0),
  });
  const overall = figures(used);
  const queueIds = [...new Set(used.map((i) => i.queue_id))];
  const assigneeIds = [...new Set(used.map((i) => i.assignee_id))];
  return {
    total: matched.length,
    truncated: matched.length > 2000,
    as_of: SNAPSHOT_AT.toISOString(),
    progress: { ...overall, done_percent: overall.total ? Math.round((overall.done * 1000) / overall.total) / 10 : 0 },
    time: minutes(used),
    queues: queueIds
      .map((id) => {
        const rows = used.filter((i) => i.queue_id === id);
        return { queue_id: id, key: data.queues.find((q) => q.id === id)!.key, ...figures(rows), ...minutes(rows) };
      })
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
    assignees: assigneeIds
      .map((id) => {
        const rows = used.filter((i) => i.assignee_id === id);
        return { assignee_id: id, ...figures(rows), ...minutes(rows) };
      })
      .sort((a, b) => (a.assignee_id ?? 0) - (b.assignee_id ?? 0)),
  };
}

beforeAll(async () => {
  h = await startStatistics({ clock: () => NOW });
  redis = new Redis(testRedisUrl());
  await h.markBuilt(SNAPSHOT_AT);

  ws = h.workspace();
  member = h.member(ws.id);
  outsider = h.member(ws.id);
  [qa, qb, qc] = ['SA', 'SB', 'SC'].map((key) => queueState(ws.id, key));
  h.grant(member, qa!.id, 'read-only');
  h.grant(member, qb!.id, 'read-write');
  main = generate(r, [qa!, qb!, qc!], 700, [member.id, outsider.id, ws.admin.id, newId(), null], true);

  big = h.workspace();
  bigQueue = queueState(big.id, 'BIG');
  bigData = generate(r, [bigQueue, queueState(big.id, 'BIH')], 2600, [big.admin.id, newId(), null], false);
  exact = h.workspace();
  exactData = generate(r, [queueState(exact.id, 'EXA')], 2000, [null, newId()], false);

  for (const data of [main, bigData, exactData]) await h.seed({ queues: data.queues, issues: data.issues, comments: data.comments });
}, 30_000);

afterAll(async () => {
  await redis.del(CACHE_FRESH_KEY);
  redis.disconnect();
  await h.close();
});

const stats = (as: Member, body: unknown) => h.call('POST', '/api/v1/statistics', { as, body });

const COMBINATIONS: Array<Record<string, any>> = [
  {},
  { queue_ids: [] },
  { category: 'done' },
  { mine: true },
  { overdue: true },
  { priority: 'high', label: 'red' },
  { status_ids: [] },
  { assignee_ids: [], category: 'open' },
  { search: 'falcon' },
  { search: 'meadow' },
  { search: '  Harbor  ', category: 'open' },
  { search: 'falcon quartz' },
  { search: 'nothingmatcheshere' },
  { search: '   ', label: 'blue', mine: false, overdue: false },
  { search: null, priority: null, category: null, label: null },
];

describe('POST /statistics figures', () => {
  test('the generated data makes every filter count something and leave something out', () => {
    const all = expected(main, ws.admin, [qa.id, qb.id, qc.id], {}).total;
    for (const filters of [{ category: 'done' }, { mine: true }, { overdue: true }, { priority: 'high', label: 'red' }, { search: 'falcon' }, { search: 'falcon quartz' }]) {
      const { total } = expected(main, ws.admin, [qa.id, qb.id, qc.id], filters);
      expect({ filters, some: total > 0, notAll: total < all }).toEqual({ filters, some: true, notAll: true });
    }
    // Text is found through the title, the description and the comments alike.
    const only = (issue: IssueStateData, field: 'title' | 'description') => words(issue[field] ?? '').includes('meadow');
    const through = main.issues.filter((i) => matchesText(i, main.comments, 'meadow'));
    expect(through.some((i) => only(i, 'title'))).toBe(true);
    expect(through.some((i) => !only(i, 'title') && only(i, 'description'))).toBe(true);
    expect(through.some((i) => !only(i, 'title') && !only(i, 'description'))).toBe(true);
  });

  test.each(COMBINATIONS.map((filters) => [JSON.stringify(filters), filters]))(
    'when a workspace admin asks with %s, then the figures are those of every queue of the workspace',
    async (_name, filters) => {
      const res = await stats(ws.admin, filters);
      expect({ seed, status: res.status, body: res.body }).toEqual({ seed, status: 200, body: expected(main, ws.admin, [qa.id, qb.id, qc.id], filters) });
      expect(StatisticsResult.parse(res.body)).toEqual(res.body);
    },
  );

  test.each(COMBINATIONS.map((filters) => [JSON.stringify(filters), filters]))(
    'when a member asks with %s, then only the queues granted to them count',
    async (_name, filters) => {
      const res = await stats(member, filters);
      expect({ seed, status: res.status, body: res.body }).toEqual({ seed, status: 200, body: expected(main, member, [qa.id, qb.id], filters) });
    },
  );

  test('when the filters name queues, statuses and assignees, then only those count', async () => {
    const cases = [
      { queue_ids: [qa.id] },
      { queue_ids: [qb.id, qa.id, qb.id], overdue: true, mine: true },
      { status_ids: [qa.statuses[0]!.id, qb.statuses[3]!.id, qc.statuses[1]!.id] },
      { assignee_ids: [outsider.id, member.id], category: 'progress' },
    ];
    for (const filters of cases) {
      expect({ seed, filters, body: (await stats(member, filters)).body }).toEqual({ seed, filters, body: expected(main, member, [qa.id, qb.id], filters) });
      expect({ seed, filters, body: (await stats(ws.admin, filters)).body }).toEqual({ seed, filters, body: expected(main, ws.admin, [qa.id, qb.id, qc.id], filters) });
    }
  });

  test('when the search is an issue key, then exactly that issue counts', async () => {
    const issue = main.issues.find((i) => i.queue_id === qa.id)!;
    const res = await stats(member, { search: issue.key.toLowerCase() });
    expect(res.body).toMatchObject({ total: 1, queues: [{ queue_id: qa.id, total: 1 }], time: { estimate_minutes: issue.estimate_minutes } });
  });

  test('when more than 2000 issues match, then total counts them all, truncated is true and the breakdown covers the 2000 most recently updated', async () => {
    const res = await stats(big.admin, {});
    expect(res.body).toEqual(expected(bigData, big.admin, bigData.queues.map((q) => q.id), {}));
    expect(res.body).toMatchObject({ total: 2600, truncated: true, progress: { total: 2000 } });

    const narrowed = await stats(big.admin, { queue_ids: [bigQueue.id], category: 'open' });
    expect(narrowed.body).toEqual(expected(bigData, big.admin, bigData.queues.map((q) => q.id), { queue_ids: [bigQueue.id], category: 'open' }));
  });

  test('when exactly 2000 issues match, then nothing is truncated', async () => {
    const res = await stats(exact.admin, {});
    expect(res.body).toEqual(expected(exactData, exact.admin, exactData.queues.map((q) => q.id), {}));
    expect(res.body).toMatchObject({ total: 2000, truncated: false });
  });

  test('when a member has no grants, then every figure is zero', async () => {
    const res = await stats(outsider, {});
    expect(res.body).toEqual(ZERO);
  });

  test("when an issue's queue has not been replicated yet, then its key is taken from the issue key", async () => {
    const w = h.workspace();
    const reader = h.member(w.id);
    const unseen = queueState(w.id, 'LATE');
    h.grant(reader, unseen.id, 'read-only');
    await h.seed({ issues: [issueState(unseen, { estimate_minutes: 7 })] });
    const res = await stats(reader, {});
    expect(res.body.queues).toEqual([{ queue_id: unseen.id, key: 'LATE', open: 1, progress: 0, done: 0, total: 1, estimate_minutes: 7, spent_minutes: 0 }]);
  });

  test('when events were applied after the rebuild, then as_of is the newest event time', async () => {
    const w = h.workspace();
    const q = queueState(w.id, 'ASOF');
    await h.seed({ queues: [q] });
    await h.schema.query(`UPDATE queues SET event_at = '2026-06-15T11:30:00.123Z' WHERE id = $1`, [q.id]);
    expect((await stats(w.admin, {})).body.as_of).toBe('2026-06-15T11:30:00.123Z');
    await h.schema.query('UPDATE queues SET event_at = NULL WHERE id = $1', [q.id]);
  });
});

describe('POST /statistics with an empty id list', () => {
  const LISTS = ['queue_ids', 'status_ids', 'assignee_ids'] as const;
  /** The statements that count issues (statisticsSql) run while `during` does. */
  async function countingStatements(during: () => Promise<void>): Promise<number> {
    const query = jest.spyOn(h.service.pool, 'query');
    try {
      await during();
      return query.mock.calls.filter(([text]) => String(typeof text === 'string' ? text : (text as { text?: string })?.text).includes('GROUPING SETS')).length;
    } finally {
      query.mockRestore();
    }
  }

  test.each(LISTS)('when %s is [], then 200 with every figure zero for a member and a workspace admin, counted without a query; absent, it does not filter', async (list) => {
    const counted = await countingStatements(async () => {
      for (const who of [member, ws.admin, big.admin]) {
        const res = await stats(who, { [list]: [] });
        expect({ list, status: res.status, body: res.body }).toEqual({ list, status: 200, body: ZERO });
      }
    });
    expect(counted).toBe(0);
    expect(await countingStatements(async () => void (await stats(member, {})))).toBe(1);
    expect((await stats(member, {})).body.total).toBe(expected(main, member, [qa.id, qb.id], {}).total);
    expect((await stats(member, {})).body.total).toBeGreaterThan(0);
    expect((await stats(big.admin, {})).body).toMatchObject({ total: 2600, truncated: true });
  });

  test.each(LISTS)('when %s is [] beside filters that count issues, then still nothing', async (list) => {
    const counting = { queue_ids: [qa.id, qb.id], status_ids: qa.statuses.concat(qb.statuses).map((st) => st.id), assignee_ids: [member.id, outsider.id, ws.admin.id], mine: false };
    expect((await stats(member, counting)).body.total).toBeGreaterThan(0);
    expect((await stats(member, { ...counting, [list]: [] })).body).toEqual(ZERO);
    expect((await stats(ws.admin, { ...counting, search: 'falcon', [list]: [] })).body).toEqual(ZERO);
  });

  test('when queue_ids names a hidden queue and another list is empty, then still 403 (named queues are checked)', async () => {
    const res = await stats(member, { queue_ids: [qc.id], assignee_ids: [] });
    expect({ status: res.status, body: res.body }).toEqual({ status: 403, body: problem(403, 'forbidden') });
  });
});

describe('POST /statistics queue_ids', () => {
  test.each([
    ['a member names a queue hidden from them', () => member, () => [qc.id]],
    ['a member names a readable and a hidden queue', () => member, () => [qa.id, qc.id]],
    ['a member names a queue that does not exist', () => member, () => [2_000_000_000]],
    ['a workspace admin names a queue that does not exist', () => ws.admin, () => [2_000_000_000]],
    ["a workspace admin names another workspace's queue", () => ws.admin, () => [bigQueue.id]],
  ])('when %s, then 403', async (_name, who, ids) => {
    const res = await stats(who(), { queue_ids: ids() });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(problem(403, 'forbidden'));
  });
});

describe('POST /statistics queue_ids of a workspace admin', () => {
  const lookups = () => h.access.calls.filter((c) => c.path === '/internal/queues/lookup');

  test('when a workspace admin names a queue the replica has not heard of yet, then the access service decides: 200 with nothing counted', async () => {
    const fresh = queueState(ws.id, 'FRESH');
    h.registerQueue(fresh);
    const before = lookups().length;
    const res = await stats(ws.admin, { queue_ids: [qa.id, fresh.id, fresh.id] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(expected(main, ws.admin, [qa.id, qb.id, qc.id], { queue_ids: [qa.id] }));
    // Only the id the replica does not hold is asked, once.
    expect(lookups().slice(before)).toEqual([{ method: 'POST', path: '/internal/queues/lookup', body: { workspace_id: ws.id, queue_ids: [fresh.id] } }]);
    expect((await stats(ws.admin, { queue_ids: [fresh.id] })).body).toMatchObject({ total: 0, queues: [], assignees: [] });
  });

  test('when the replica holds every named queue, then the access service is not asked', async () => {
    const before = lookups().length;
    expect((await stats(ws.admin, { queue_ids: [qa.id, qb.id, qc.id] })).status).toBe(200);
    expect(lookups()).toHaveLength(before);
  });

  test("when a queue the replica has not heard of is another workspace's, then 403", async () => {
    const foreign = queueState(big.id, 'FRGN');
    h.registerQueue(foreign);
    const res = await stats(ws.admin, { queue_ids: [qa.id, foreign.id] });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(problem(403, 'forbidden'));
  });

  test('when the access service is down, then a queue the replica does not hold is 503, one it holds still 200', async () => {
    const fresh = queueState(ws.id, 'DOWN');
    h.registerQueue(fresh);
    h.access.setDown(true);
    try {
      const res = await stats(ws.admin, { queue_ids: [fresh.id] });
      expect(res.status).toBe(503);
      expect(res.body).toEqual(problem(503, 'statistics_unavailable'));
      expect(res.headers.get('retry-after')).toBe('5');
      expect((await stats(ws.admin, { queue_ids: [qa.id] })).status).toBe(200);
    } finally {
      h.access.setDown(false);
    }
  });
});

describe('POST /statistics validation', () => {
  test.each([
    ['an unknown field', { foo: 1 }, 'foo'],
    ['a queue id of 0', { queue_ids: [0] }, 'queue_ids.0'],
    ['a queue id that is not an integer', { queue_ids: ['1'] }, 'queue_ids.0'],
    ['more than 100 queue ids', { queue_ids: Array.from({ length: 101 }, (_, i) => i + 1) }, 'queue_ids'],
    ['more than 100 status ids', { status_ids: Array.from({ length: 101 }, (_, i) => i + 1) }, 'status_ids'],
    ['more than 100 assignee ids', { assignee_ids: Array.from({ length: 101 }, (_, i) => i + 1) }, 'assignee_ids'],
    ['a search of 501 characters', { search: 'x'.repeat(501) }, 'search'],
    ['an unknown priority', { priority: 'urgent' }, 'priority'],
    ['an unknown category', { category: 'closed' }, 'category'],
    ['mine that is not a boolean', { mine: 'yes' }, 'mine'],
    ['an empty label', { label: '' }, 'label'],
    ['a body that is not an object', [1], '(body)'],
  ])('when the body has %s, then 422 naming it', async (_name, body, path) => {
    const res = await stats(member, body);
    expect(res.status).toBe(422);
    expect(res.body).toEqual(problem(422, 'validation_failed'));
    expect(res.body.errors).toEqual(expect.arrayContaining([{ path, message: expect.any(String) }]));
  });

  test('when the body is malformed JSON, or not JSON, or missing, then 422', async () => {
    expect((await h.call('POST', '/api/v1/statistics', { as: member, raw: '{"mine":', headers: { 'content-type': 'application/json' } })).status).toBe(422);
    expect((await h.call('POST', '/api/v1/statistics', { as: member, raw: 'mine=true', headers: { 'content-type': 'text/plain' } })).status).toBe(422);
    expect((await h.call('POST', '/api/v1/statistics', { as: member })).status).toBe(422);
  });

  test('when no signed principal comes with the request, then 401', async () => {
    expect((await h.call('POST', '/api/v1/statistics', { body: {} })).body).toEqual(problem(401, 'unauthorized'));
  });
});

describe('POST /statistics authorization', () => {
  /** A grant list as the access service caches it: signed with its key for this Redis key (libs/authz cache-protocol.ts). */
  const signedAcl = (key: string, acl: unknown) => signCacheEntry(devSigningKey('access'), key, acl, 30);
  const cacheAcl = (user: Member, queueIds: number[]) =>
    redis.set(aclCacheKey(user.id), signedAcl(aclCacheKey(user.id), { user_id: user.id, workspace_id: user.workspaceId, grants: queueIds.map((queue_id) => ({ queue_id, role: 'read-only' })) }), 'PX', 30_000);
  const accessCallsFor = (user: Member) => h.access.calls.filter((c) => c.path === `/internal/acl/users/${user.id}`).length;

  test('when the cached ACL is fresh, then it decides without asking the access service', async () => {
    const cached = h.member(ws.id);
    h.grant(cached, qc.id, 'read-only'); // what the access service would say: not what the cache says
    await cacheAcl(cached, [qa.id]);
    await redis.set(CACHE_FRESH_KEY, '1', 'PX', 30_000);

    expect((await stats(cached, { queue_ids: [qa.id] })).status).toBe(200);
    expect((await stats(cached, { queue_ids: [qc.id] })).status).toBe(403);
    expect((await stats(cached, {})).body).toEqual(expected(main, cached, [qa.id], {}));
    expect(accessCallsFor(cached)).toBe(0);
  });

  test('when the freshness key is missing, then the cached ACL is not trusted and the access service decides', async () => {
    const stale = h.member(ws.id);
    h.grant(stale, qb.id, 'read-only');
    await cacheAcl(stale, [qa.id]);
    await redis.del(CACHE_FRESH_KEY);

    expect((await stats(stale, { queue_ids: [qa.id] })).status).toBe(403);
    expect((await stats(stale, { queue_ids: [qb.id] })).status).toBe(200);
    expect(accessCallsFor(stale)).toBe(2);
  });

  test('when the cache has no entry or a malformed one, then the access service decides', async () => {
    const missing = h.member(ws.id);
    const malformed = h.member(ws.id);
    h.grant(missing, qb.id, 'read-only');
    h.grant(malformed, qb.id, 'read-only');
    await redis.set(aclCacheKey(malformed.id), '{"not":"an acl"}', 'PX', 30_000);
    await redis.set(CACHE_FRESH_KEY, '1', 'PX', 30_000);

    for (const who of [missing, malformed]) {
      expect((await stats(who, { queue_ids: [qb.id] })).status).toBe(200);
      expect(accessCallsFor(who)).toBe(1);
    }
    await redis.del(CACHE_FRESH_KEY);
  });

  test('when a grant is revoked, then the very next request no longer counts the queue', async () => {
    const changing = h.member(ws.id);
    h.grant(changing, qa.id, 'read-only');
    expect((await stats(changing, { queue_ids: [qa.id] })).status).toBe(200);
    h.grant(changing, qa.id, null);
    expect((await stats(changing, { queue_ids: [qa.id] })).status).toBe(403);
    expect((await stats(changing, {})).body.total).toBe(0);
  });

  test('when the access service is down and nothing is cached, then 503 statistics_unavailable with Retry-After; workspace admins are unaffected', async () => {
    const who = h.member(ws.id);
    h.access.setDown(true);
    try {
      const res = await stats(who, {});
      expect(res.status).toBe(503);
      expect(res.body).toEqual(problem(503, 'statistics_unavailable'));
      expect(res.headers.get('retry-after')).toBe('5');
      expect((await stats(ws.admin, {})).status).toBe(200);
    } finally {
      h.access.setDown(false);
    }
  });

  test("when a cached ACL belongs to another workspace, then it grants nothing in the caller's", async () => {
    const foreign = h.member(ws.id);
    await redis.set(aclCacheKey(foreign.id), signedAcl(aclCacheKey(foreign.id), { user_id: foreign.id, workspace_id: big.id, grants: [{ queue_id: qa.id, role: 'admin' }] }), 'PX', 30_000);
    await redis.set(CACHE_FRESH_KEY, '1', 'PX', 30_000);
    expect((await stats(foreign, { queue_ids: [qa.id] })).status).toBe(403);
    await redis.del(CACHE_FRESH_KEY);
  });
});
