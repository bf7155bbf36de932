import { Dashboard } from '@tracker/contracts';
import type { QueueStateData } from '../src/domain/replica';
import { issueState, queueState } from './fixtures';
import { problem, startStatistics, type Member, type StatisticsHarness, type Workspace } from './harness';

let h: StatisticsHarness;
let ws: Workspace;
let owner: Member;
let colleague: Member;
let readable: QueueStateData;
let hidden: QueueStateData;
let other: Workspace;
let otherQueue: QueueStateData;

beforeAll(async () => {
  h = await startStatistics();
  await h.markBuilt();
  ws = h.workspace();
  owner = h.member(ws.id);
  colleague = h.member(ws.id);
  readable = queueState(ws.id, 'DRD');
  hidden = queueState(ws.id, 'DHD');
  other = h.workspace();
  otherQueue = queueState(other.id, 'DOT');
  await h.seed({ queues: [readable, hidden, otherQueue] });
  for (const m of [owner, colleague]) h.grant(m, readable.id, 'read-only');
});
afterAll(() => h.close());

const EMPTY_FILTERS = { mine: false, overdue: false };
const create = (as: Member, body: unknown) => h.call('POST', '/api/v1/dashboards', { as, body });
const put = (as: Member, id: number | string, body: unknown) => h.call('PUT', `/api/v1/dashboards/${id}`, { as, body });
const list = async (as: Member) => {
  const res = await h.call('GET', '/api/v1/dashboards', { as });
  expect(res.status).toBe(200);
  return res.body as any[];
};
async function created(as: Member, body: unknown) {
  const res = await create(as, body);
  if (res.status !== 201) throw new Error(`POST /dashboards answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * Dashboards a caller does not see, with who asks for each: the workspace admin's `secret`
 * (its `widgets` name a queue hidden from `owner`), another workspace's, and an unknown id.
 */
async function boardsNotSeen(widgets: unknown[]): Promise<{ secret: { id: number }; cases: Array<[Member, number]> }> {
  const secret = await created(ws.admin, { name: 'Secret', widgets });
  const foreign = await created(other.admin, { name: 'Foreign', widgets: [] });
  return {
    secret,
    cases: [
      [owner, secret.id],
      [ws.admin, foreign.id],
      [owner, foreign.id],
      [owner, 2_000_000_000],
    ],
  };
}

describe('POST /dashboards', () => {
  test('when a member creates a dashboard, then 201 with every default filled, and it is listed for the workspace', async () => {
    const res = await create(owner, {
      name: 'Team board',
      widgets: [{ type: 'stats' }, { type: 'issues', title: 'Mine', filters: { queue_ids: [readable.id], mine: true, search: 'db' } }],
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      workspace_id: ws.id,
      owner_id: owner.id,
      name: 'Team board',
      widgets: [
        { type: 'stats', title: '', filters: EMPTY_FILTERS },
        { type: 'issues', title: 'Mine', filters: { queue_ids: [readable.id], mine: true, overdue: false, search: 'db' } },
      ],
      created_at: expect.any(String),
      updated_at: res.body.created_at,
    });
    expect(Dashboard.parse(res.body)).toEqual(res.body);
    expect(await list(colleague)).toContainEqual(res.body);
    expect(await list(ws.admin)).toContainEqual(res.body);
    expect(await list(other.admin)).not.toContainEqual(expect.objectContaining({ id: res.body.id }));
  });

  test.each(['stats', 'issues', 'statuses', 'queues', 'time', 'assignees'])('when a widget is of type %s, then it is accepted', async (type) => {
    expect((await create(owner, { name: 'T', widgets: [{ type }] })).status).toBe(201);
  });

  test('when there are 30 widgets, a name of 500 characters, titles of 200 and 4000 characters of widget text in all, then 201; with no widgets at all too', async () => {
    const widgets = Array.from({ length: 30 }, (_, i) => ({ type: 'time', title: i < 20 ? 't'.repeat(200) : '' }));
    const res = await create(owner, { name: 'n'.repeat(500), widgets });
    expect(res.status).toBe(201);
    expect(res.body.widgets).toHaveLength(30);
    expect((await create(owner, { name: 'Empty', widgets: [] })).status).toBe(201);
  });

  test('when the filters name 100 ids per list and 1000 ids in all, then 201', async () => {
    const hundred = (from: number) => Array.from({ length: 100 }, (_, i) => from + i);
    const widgets = Array.from({ length: 5 }, (_, i) => ({ type: 'stats', filters: { status_ids: hundred(i * 1000 + 1), assignee_ids: hundred(i * 1000 + 500) } }));
    const res = await create(owner, { name: 'Many ids', widgets });
    expect(res.status).toBe(201);
    expect(res.body.widgets[4].filters.assignee_ids).toHaveLength(100);
  });

  test.each([
    ['31 widgets', { name: 'D', widgets: Array.from({ length: 31 }, () => ({ type: 'stats' })) }, 'widgets'],
    ['an empty name', { name: '', widgets: [] }, 'name'],
    ['a name of 501 characters', { name: 'n'.repeat(501), widgets: [] }, 'name'],
    ['no name', { widgets: [] }, 'name'],
    ['no widgets', { name: 'D' }, 'widgets'],
    ['an unknown widget type', { name: 'D', widgets: [{ type: 'chart' }] }, 'widgets.0.type'],
    ['a widget without a type', { name: 'D', widgets: [{ title: 'x' }] }, 'widgets.0.type'],
    ['a title of 201 characters', { name: 'D', widgets: [{ type: 'stats', title: 't'.repeat(201) }] }, 'widgets.0.title'],
    ['an unknown field', { name: 'D', widgets: [], color: 'red' }, 'color'],
    ['an unknown widget field', { name: 'D', widgets: [{ type: 'stats', size: 2 }] }, 'widgets.0.size'],
    ['an unknown filter field', { name: 'D', widgets: [{ type: 'stats', filters: { queues: [1] } }] }, 'widgets.0.filters.queues'],
    ['a filter out of range', { name: 'D', widgets: [{ type: 'stats', filters: { queue_ids: [0] } }] }, 'widgets.0.filters.queue_ids.0'],
    ['filters that are not an object', { name: 'D', widgets: [{ type: 'stats', filters: 'all' }] }, 'widgets.0.filters'],
    ['a name with a NUL character', { name: 'a\u0000b', widgets: [] }, 'name'],
    ['101 queue ids in a filter', { name: 'D', widgets: [{ type: 'stats', filters: { queue_ids: Array.from({ length: 101 }, (_, i) => i + 1) } }] }, 'widgets.0.filters.queue_ids'],
    ['101 status ids in a filter', { name: 'D', widgets: [{ type: 'stats' }, { type: 'stats', filters: { status_ids: Array.from({ length: 101 }, (_, i) => i + 1) } }] }, 'widgets.1.filters.status_ids'],
    ['101 assignee ids in a filter', { name: 'D', widgets: [{ type: 'stats', filters: { assignee_ids: Array.from({ length: 101 }, (_, i) => i + 1) } }] }, 'widgets.0.filters.assignee_ids'],
    [
      '1001 ids in all',
      { name: 'D', widgets: [...Array.from({ length: 10 }, () => ({ type: 'stats', filters: { status_ids: Array.from({ length: 100 }, (_, i) => i + 1) } })), { type: 'stats', filters: { queue_ids: [1] } }] },
      'widgets',
    ],
    ['4001 characters of titles, searches and labels in all', { name: 'D', widgets: [...Array.from({ length: 8 }, () => ({ type: 'stats', filters: { search: 's'.repeat(500) } })), { type: 'stats', filters: { label: 'l' } }] }, 'widgets'],
  ])('when the body has %s, then 422 naming it', async (_name, body, path) => {
    const res = await create(owner, body);
    expect(res.status).toBe(422);
    expect(res.body).toEqual(problem(422, 'validation_failed'));
    expect(res.body.errors).toEqual(expect.arrayContaining([{ path, message: expect.any(String) }]));
  });

  test.each([
    ['a queue hidden from the member', () => owner, () => hidden.id],
    ['a queue that does not exist', () => owner, () => 2_000_000_000],
    ['a queue that does not exist, as a workspace admin', () => ws.admin, () => 2_000_000_000],
    ["another workspace's queue, as a workspace admin", () => ws.admin, () => otherQueue.id],
  ])('when a widget filter names %s, then 403 and nothing is created', async (_name, who, queueId) => {
    const before = (await list(ws.admin)).length;
    const res = await create(who(), { name: 'Nope', widgets: [{ type: 'stats' }, { type: 'queues', filters: { queue_ids: [readable.id, queueId()] } }] });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(problem(403, 'forbidden'));
    expect(await list(ws.admin)).toHaveLength(before);
  });
});

describe('queues the replica has not heard of yet (their queue.created still on the way)', () => {
  const lookups = () => h.access.calls.filter((c) => c.path === '/internal/queues/lookup');

  test('when a workspace admin names one, then the access service decides: 201, listed for them at once, not for a member without a grant', async () => {
    const fresh = queueState(ws.id, 'DFR');
    h.registerQueue(fresh);
    const before = lookups().length;
    const board = await created(ws.admin, { name: 'Fresh', widgets: [{ type: 'stats', filters: { queue_ids: [readable.id, fresh.id] } }] });
    expect(lookups().slice(before)).toEqual([{ method: 'POST', path: '/internal/queues/lookup', body: { workspace_id: ws.id, queue_ids: [fresh.id] } }]);
    expect(await list(ws.admin)).toContainEqual(board);
    expect(await list(owner)).not.toContainEqual(expect.objectContaining({ id: board.id }));
    const res = await put(ws.admin, board.id, { name: 'Fresher', widgets: [{ type: 'time', filters: { queue_ids: [fresh.id] } }] });
    expect(res.status).toBe(200);
  });

  test("when a member's dashboard names a granted one, then a workspace admin lists it, and as no owner gets 403 replacing it, not 404", async () => {
    const fresh = queueState(ws.id, 'DFM');
    h.registerQueue(fresh);
    const granted = h.member(ws.id);
    h.grant(granted, fresh.id, 'read-only');
    const board = await created(granted, { name: 'Granted', widgets: [{ type: 'stats', filters: { queue_ids: [fresh.id] } }] });
    expect(await list(ws.admin)).toContainEqual(board);
    expect(await list(granted)).toContainEqual(board);
    const res = await put(ws.admin, board.id, { name: 'Taken', widgets: [] });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(problem(403, 'forbidden'));
  });

  test("when it is another workspace's, then 403 and nothing is created", async () => {
    const foreign = queueState(other.id, 'DFO');
    h.registerQueue(foreign);
    const before = (await list(ws.admin)).length;
    const res = await create(ws.admin, { name: 'Nope', widgets: [{ type: 'stats', filters: { queue_ids: [foreign.id] } }] });
    expect(res.status).toBe(403);
    expect(await list(ws.admin)).toHaveLength(before);
  });

  test('when the access service is down, then naming one is 503 and nothing is created; queues the replica holds still work', async () => {
    const fresh = queueState(ws.id, 'DFD');
    h.registerQueue(fresh);
    const before = (await list(ws.admin)).length;
    h.access.setDown(true);
    try {
      const res = await create(ws.admin, { name: 'Down', widgets: [{ type: 'stats', filters: { queue_ids: [fresh.id] } }] });
      expect(res.status).toBe(503);
      expect(res.body).toEqual(problem(503, 'statistics_unavailable'));
      expect(res.headers.get('retry-after')).toBe('5');
      expect(await list(ws.admin)).toHaveLength(before);
      expect((await create(ws.admin, { name: 'Up', widgets: [{ type: 'stats', filters: { queue_ids: [hidden.id] } }] })).status).toBe(201);
    } finally {
      h.access.setDown(false);
    }
  });
});

describe('dashboards per workspace', () => {
  const LIMIT = 100;
  /** Dashboards written straight into the table (test data, not through the code under test). */
  const insert = (workspaceId: number, ownerId: number, count: number) =>
    h.schema.query(
      `INSERT INTO dashboards (workspace_id, owner_id, name, widgets, queue_ids) SELECT $1, $2, 'Seeded ' || n, '[]'::jsonb, '{}' FROM generate_series(1, $3) AS n`,
      [workspaceId, ownerId, count],
    );
  const countIn = async (workspaceId: number) =>
    (await h.schema.query<{ n: number }>('SELECT count(*)::int AS n FROM dashboards WHERE workspace_id = $1', [workspaceId]))[0]!.n;

  test('when a workspace holds 100 dashboards, then the 101st is 422 naming the limit, while replacing one and other workspaces still work', async () => {
    const w = h.workspace();
    const member = h.member(w.id);
    for (let i = 0; i < LIMIT; i++) {
      const res = await create(i % 2 ? member : w.admin, { name: `Board ${i}`, widgets: [] });
      expect({ i, status: res.status }).toEqual({ i, status: 201 });
    }
    for (const who of [member, w.admin]) {
      const res = await create(who, { name: 'One too many', widgets: [{ type: 'stats' }] });
      expect(res.status).toBe(422);
      expect(res.body).toEqual(problem(422, 'validation_failed'));
      expect(res.body.errors).toEqual([{ path: '(body)', message: expect.stringContaining('100 dashboards') }]);
      expect(res.body.detail).toContain('at most 100 dashboards');
    }
    expect(await list(member)).toHaveLength(LIMIT);
    const mine = (await list(member)).find((d) => d.owner_id === member.id);
    expect((await put(member, mine.id, { name: 'Replaced', widgets: [{ type: 'time' }] })).status).toBe(200);
    const fresh = h.workspace();
    expect((await create(fresh.admin, { name: 'Elsewhere', widgets: [] })).status).toBe(201);
  });

  test('when the body is invalid or names an unreadable queue in a full workspace, then that is answered first (422 of the body, 403)', async () => {
    const w = h.workspace();
    await insert(w.id, w.admin.id, LIMIT);
    expect((await create(w.admin, { name: '', widgets: [] })).body.errors).toEqual([{ path: 'name', message: expect.any(String) }]);
    expect((await create(w.admin, { name: 'X', widgets: [{ type: 'stats', filters: { queue_ids: [otherQueue.id] } }] })).status).toBe(403);
  });

  test.each([
    [99, 2],
    [90, 30],
    [0, 120],
  ])('when a workspace holds %i dashboards and %i are created at once, then it ends with exactly 100', async (held, concurrent) => {
    const w = h.workspace();
    const member = h.member(w.id);
    await insert(w.id, w.admin.id, held);
    const answers = await Promise.all(Array.from({ length: concurrent }, (_, i) => create(i % 2 ? member : w.admin, { name: `Race ${i}`, widgets: [] })));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(Math.min(concurrent, LIMIT - held));
    expect(statuses.filter((s) => s !== 201 && s !== 422)).toEqual([]);
    expect(await countIn(w.id)).toBe(Math.min(LIMIT, held + concurrent));
  });
});

describe('GET /dashboards', () => {
  test('when a dashboard names a queue hidden from the caller, then it is not listed for them, but for those who can read it', async () => {
    const adminBoard = await created(ws.admin, { name: 'Admin board', widgets: [{ type: 'stats', filters: { queue_ids: [hidden.id] } }] });
    const mixed = await created(ws.admin, { name: 'Mixed', widgets: [{ type: 'stats', filters: { queue_ids: [readable.id] } }, { type: 'time', filters: { queue_ids: [hidden.id] } }] });
    const open = await created(ws.admin, { name: 'Open board', widgets: [{ type: 'stats', filters: { queue_ids: [readable.id] } }] });
    const ids = (rows: any[]) => rows.map((d) => d.id);

    expect(ids(await list(owner))).toEqual(expect.arrayContaining([open.id]));
    expect(ids(await list(owner))).not.toEqual(expect.arrayContaining([adminBoard.id]));
    expect(ids(await list(owner))).not.toContain(mixed.id);
    expect(ids(await list(ws.admin))).toEqual(expect.arrayContaining([adminBoard.id, mixed.id, open.id]));

    h.grant(colleague, hidden.id, 'read-only');
    expect(ids(await list(colleague))).toEqual(expect.arrayContaining([adminBoard.id, mixed.id, open.id]));
    h.grant(colleague, hidden.id, null);
    expect(ids(await list(colleague))).not.toContain(adminBoard.id);
  });

  test('when widget filters have empty id lists, then they are kept as given, the dashboard is listed to every member (it names no queue), and the widgets count nothing', async () => {
    const w = h.workspace();
    const q = queueState(w.id, 'DEM');
    const writer = h.member(w.id);
    const ungranted = h.member(w.id);
    h.grant(writer, q.id, 'read-only');
    await h.seed({ queues: [q], issues: [issueState(q, { assignee_id: writer.id }), issueState(q)] });
    const board = await created(writer, {
      name: 'Nothing selected',
      widgets: [{ type: 'stats', filters: { queue_ids: [] } }, { type: 'issues', filters: { status_ids: [], category: 'open' } }, { type: 'assignees', filters: { assignee_ids: [] } }],
    });
    expect(board.widgets.map((widget: any) => widget.filters)).toEqual([
      { ...EMPTY_FILTERS, queue_ids: [] },
      { ...EMPTY_FILTERS, status_ids: [], category: 'open' },
      { ...EMPTY_FILTERS, assignee_ids: [] },
    ]);
    for (const who of [writer, ungranted, w.admin]) expect(await list(who)).toContainEqual(board);

    // A widget is evaluated as a client does: its filters sent to POST /statistics. Without the empty list, the same filters count both issues.
    for (const widget of board.widgets) {
      const counted = await h.call('POST', '/api/v1/statistics', { as: writer, body: widget.filters });
      expect({ filters: widget.filters, status: counted.status, total: counted.body.total, queues: counted.body.queues }).toEqual({ filters: widget.filters, status: 200, total: 0, queues: [] });
      const { queue_ids: _q, status_ids: _s, assignee_ids: _a, ...rest } = widget.filters;
      expect((await h.call('POST', '/api/v1/statistics', { as: writer, body: rest })).body.total).toBe(2);
    }

    const replaced = await put(writer, board.id, { name: 'Still nothing', widgets: [{ type: 'time', filters: { queue_ids: [], mine: true } }] });
    expect({ status: replaced.status, filters: replaced.body.widgets?.[0]?.filters }).toEqual({ status: 200, filters: { queue_ids: [], mine: true, overdue: false } });
    expect(await list(ungranted)).toContainEqual(replaced.body);
  });

  test('when dashboards are listed, then oldest first and only those of the caller\'s workspace', async () => {
    const w = h.workspace();
    const first = await created(w.admin, { name: 'First', widgets: [] });
    const second = await created(h.member(w.id), { name: 'Second', widgets: [{ type: 'stats' }] });
    expect(await list(w.admin)).toEqual([first, second]);
  });
});

describe('PUT /dashboards/{dashboard_id}', () => {
  test('when the owner replaces a dashboard, then 200 with the new name and widgets, and the change is listed', async () => {
    const board = await created(owner, { name: 'Before', widgets: [{ type: 'stats' }, { type: 'time' }] });
    await new Promise((r) => setTimeout(r, 5));
    const res = await put(owner, board.id, { name: 'After', widgets: [{ type: 'assignees', filters: { queue_ids: [readable.id], overdue: true } }] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...board,
      name: 'After',
      widgets: [{ type: 'assignees', title: '', filters: { queue_ids: [readable.id], mine: false, overdue: true } }],
      updated_at: expect.any(String),
    });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(board.updated_at));
    expect(await list(colleague)).toContainEqual(res.body);
  });

  test('when another member who can see the dashboard replaces it, then 403 and it is unchanged; a workspace admin is no owner either', async () => {
    const board = await created(owner, { name: 'Mine', widgets: [{ type: 'stats', filters: { queue_ids: [readable.id] } }] });
    for (const who of [colleague, ws.admin]) {
      const res = await put(who, board.id, { name: 'Taken', widgets: [] });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(problem(403, 'forbidden'));
    }
    expect(await list(owner)).toContainEqual(board);
  });

  test('when the dashboard is hidden from the caller, from another workspace or unknown, then 404', async () => {
    const { cases } = await boardsNotSeen([{ type: 'stats', filters: { queue_ids: [hidden.id] } }]);
    for (const [who, id] of cases) {
      const res = await put(who, id, { name: 'X', widgets: [] });
      expect({ id, status: res.status, body: res.body }).toEqual({ id, status: 404, body: problem(404, 'not_found') });
    }
  });

  test('when the owner lost access to a queue the dashboard names, then it is hidden from them too: 404', async () => {
    const lapsing = h.member(ws.id);
    h.grant(lapsing, hidden.id, 'read-write');
    const board = await created(lapsing, { name: 'Lapsing', widgets: [{ type: 'stats', filters: { queue_ids: [hidden.id] } }] });
    h.grant(lapsing, hidden.id, null);
    expect((await put(lapsing, board.id, { name: 'X', widgets: [] })).status).toBe(404);
  });

  test('when the owner names a queue they cannot read, then 403 and it is unchanged', async () => {
    const board = await created(owner, { name: 'Keep', widgets: [] });
    for (const queueId of [hidden.id, otherQueue.id, 2_000_000_000]) {
      const res = await put(owner, board.id, { name: 'Changed', widgets: [{ type: 'stats', filters: { queue_ids: [queueId] } }] });
      expect(res.status).toBe(403);
    }
    expect(await list(owner)).toContainEqual(board);
  });

  test.each(['abc', '0', '-1', '1.5', '99999999999999999999', '%E0%A4%A'])('when the id is %j, then 422', async (id) => {
    const res = await put(owner, id, { name: 'X', widgets: [] });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(problem(422, 'validation_failed'));
  });

  test('when the body is invalid, then 422 before anything else', async () => {
    const board = await created(owner, { name: 'Valid', widgets: [] });
    for (const body of [{ name: '', widgets: [] }, { name: 'X' }, { name: 'X', widgets: [{ type: 'pie' }] }, { name: 'X', widgets: [], owner_id: 1 }]) {
      expect((await put(owner, board.id, body)).status).toBe(422);
    }
    expect((await h.call('PUT', `/api/v1/dashboards/${board.id}`, { as: owner, raw: '{', headers: { 'content-type': 'application/json' } })).status).toBe(422);
  });
});

describe('GET /dashboards/{dashboard_id}/statistics', () => {
  const statisticsOf = (as: Member, id: number | string) => h.call('GET', `/api/v1/dashboards/${id}/statistics`, { as });
  const oneByOne = async (as: Member, widgets: Array<{ filters: unknown }>) => {
    const answers = [];
    for (const widget of widgets) {
      const res = await h.call('POST', '/api/v1/statistics', { as, body: widget.filters });
      expect(res.status).toBe(200);
      answers.push(res.body);
    }
    return answers;
  };

  let w: Workspace;
  let mate: Member;
  let boss: Member;
  let q: QueueStateData;
  let r: QueueStateData;
  beforeAll(async () => {
    w = h.workspace();
    mate = h.member(w.id);
    boss = h.member(w.id);
    q = queueState(w.id, 'DSA');
    r = queueState(w.id, 'DSB');
    for (const m of [mate, boss]) {
      h.grant(m, q.id, 'read-only');
      h.grant(m, r.id, 'read-only');
    }
    const urgent = { priority: 'critical' as const };
    await h.seed({
      queues: [q, r],
      issues: [
        issueState(q, { assignee_id: mate.id, estimate_minutes: 60 }),
        issueState(q, { assignee_id: boss.id, ...urgent }),
        issueState(q),
        issueState(r, { assignee_id: mate.id, spent_minutes: 30 }),
        issueState(r, urgent),
      ],
    });
  });

  test('when a member asks, then 200 with what POST /statistics answers them for each widget, in order, whatever the type', async () => {
    const board = await created(boss, {
      name: 'Overview',
      widgets: [
        { type: 'stats' },
        { type: 'issues', filters: { queue_ids: [q.id] } },
        { type: 'assignees', filters: { mine: true } },
        { type: 'time', filters: { queue_ids: [r.id], priority: 'critical' } },
        { type: 'statuses', filters: { queue_ids: [] } },
        { type: 'queues', filters: { assignee_ids: [mate.id, boss.id] } },
      ],
    });
    for (const who of [mate, boss, w.admin]) {
      const res = await statisticsOf(who, board.id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ dashboard_id: board.id, widgets: await oneByOne(who, board.widgets) });
    }
    // The figures are the caller's: `mine` counts mate's issues for mate, boss's for boss.
    expect((await statisticsOf(mate, board.id)).body.widgets.slice(0, 3).map((s: any) => s.total)).toEqual([5, 3, 2]);
    expect((await statisticsOf(boss, board.id)).body.widgets[2].total).toBe(1);
    expect((await statisticsOf(boss, board.id)).body.widgets[3].total).toBe(1);
    expect((await statisticsOf(boss, board.id)).body.widgets[4].total).toBe(0);
  });

  test('when the dashboard holds 30 widgets, then 30 answers in the widgets\' order; with none, an empty list', async () => {
    const assignees = [mate.id, boss.id, 2_000_000_000];
    const widgets = Array.from({ length: 30 }, (_, i) => ({ type: 'stats', filters: { assignee_ids: [assignees[i % 3]!] } }));
    const board = await created(mate, { name: 'Thirty', widgets });
    const res = await statisticsOf(mate, board.id);
    expect(res.status).toBe(200);
    expect(res.body.widgets.map((s: any) => s.total)).toEqual(Array.from({ length: 30 }, (_, i) => [2, 1, 0][i % 3]));
    expect(res.body.widgets).toEqual(await oneByOne(mate, board.widgets));

    const empty = await created(mate, { name: 'Empty', widgets: [] });
    expect((await statisticsOf(mate, empty.id)).body).toEqual({ dashboard_id: empty.id, widgets: [] });
  });

  test('when the dashboard is hidden from the caller, from another workspace or unknown, then 404 as for one that does not exist', async () => {
    const { secret, cases } = await boardsNotSeen([{ type: 'stats', filters: { queue_ids: [readable.id] } }, { type: 'stats', filters: { queue_ids: [hidden.id] } }]);
    for (const [who, id] of cases) {
      const res = await statisticsOf(who, id);
      expect({ id, status: res.status, body: res.body }).toEqual({ id, status: 404, body: problem(404, 'not_found') });
    }
    expect((await statisticsOf(ws.admin, secret.id)).status).toBe(200);
  });

  test('when its owner lost access to a queue it names, then it is hidden from them too: 404; granted again, 200', async () => {
    const lapsing = h.member(ws.id);
    h.grant(lapsing, hidden.id, 'read-write');
    const board = await created(lapsing, { name: 'Lapsing', widgets: [{ type: 'stats', filters: { queue_ids: [hidden.id] } }] });
    expect((await statisticsOf(lapsing, board.id)).status).toBe(200);
    h.grant(lapsing, hidden.id, null);
    expect((await statisticsOf(lapsing, board.id)).body).toEqual(problem(404, 'not_found'));
    h.grant(lapsing, hidden.id, 'read-only');
    expect((await statisticsOf(lapsing, board.id)).status).toBe(200);
  });

  test.each(['abc', '0', '-1', '1.5', '99999999999999999999', '%E0%A4%A'])('when the id is %j, then 422', async (id) => {
    const res = await statisticsOf(owner, id);
    expect(res.status).toBe(422);
    expect(res.body).toEqual(problem(422, 'validation_failed'));
  });
});

describe('other paths', () => {
  test('when a method or path is not part of the API, then 404 problem; without a signed principal, 401', async () => {
    expect((await h.call('GET', '/api/v1/dashboards/1', { as: owner })).body).toEqual(problem(404, 'not_found'));
    expect((await h.call('DELETE', '/api/v1/dashboards/1', { as: owner })).status).toBe(404);
    expect((await h.call('POST', '/api/v1/dashboards/1/statistics', { as: owner, body: {} })).status).toBe(404);
    expect((await h.call('GET', '/api/v1/dashboards/1/statistics/2', { as: owner })).status).toBe(404);
    expect((await h.call('GET', '/api/v1/statistics', { as: owner })).status).toBe(404);
    expect((await h.call('GET', '/api/v1/dashboards')).body).toEqual(problem(401, 'unauthorized'));
  });
});
