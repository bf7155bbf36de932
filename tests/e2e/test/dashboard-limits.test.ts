import { DASHBOARD_LIMITS, FILTER_LIMITS } from '@tracker/contracts';
import { seedWorkspace, startSystem, type System } from '@tracker/system-tests-support';

/**
 * Every member lists every dashboard of the workspace they may see, so a dashboard and
 * their number are bounded: at most 100 ids per filter list (search and statistics too),
 * 1000 ids and 4000 characters of widget text per dashboard, 100 dashboards per
 * workspace. The largest GET /dashboards answer these allow is computed below and built.
 */
let system: System;

beforeAll(async () => {
  system = await startSystem();
}, 120_000);
afterAll(() => system?.stop());

const ids = (n: number, from = 1) => Array.from({ length: n }, (_, i) => from + i);

/**
 * The largest GET /dashboards answer in bytes. Per dashboard: ids of 10 digits, a name
 * of 500 characters that JSON writes as 6 bytes each (`\u0001`: control characters are
 * the longest to write), 30 widgets with every filter present at its longest value, and
 * 4000 characters of widget text at 6 bytes each; 1000 ids of 10 digits and a comma.
 */
function largestListBytes(): number {
  const envelope = { id: 2147483647, workspace_id: 2147483647, owner_id: 2147483647, name: '', widgets: [], created_at: '2026-11-24T12:00:00.000Z', updated_at: '2026-11-24T12:00:00.000Z' };
  const widget = {
    type: 'assignees',
    title: '',
    filters: { search: null, queue_ids: [], status_ids: [], assignee_ids: [], mine: false, priority: 'critical', category: 'progress', overdue: false, label: null },
  };
  const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
  const perChar = bytes('\u0001') - bytes('');
  const dashboard =
    bytes(envelope) + DASHBOARD_LIMITS.name * perChar + DASHBOARD_LIMITS.widgets * bytes(widget) + (DASHBOARD_LIMITS.widgets - 1) + DASHBOARD_LIMITS.text * perChar + DASHBOARD_LIMITS.ids * 11;
  return 2 + DASHBOARD_LIMITS.perWorkspace * dashboard + (DASHBOARD_LIMITS.perWorkspace - 1);
}

/** A dashboard at every limit at once: all ids of 10 digits, all text written 6 bytes a character. */
function largestDashboard(n: number) {
  const control = '\u0001';
  const idLists = DASHBOARD_LIMITS.ids / FILTER_LIMITS.ids; // 10 lists of 100 ids, in the first 5 widgets
  const titled = DASHBOARD_LIMITS.text / DASHBOARD_LIMITS.title; // 20 titles of 200 characters
  return {
    name: `${n}`.padEnd(DASHBOARD_LIMITS.name, control),
    widgets: Array.from({ length: DASHBOARD_LIMITS.widgets }, (_, w) => ({
      type: 'assignees',
      title: w < titled ? control.repeat(DASHBOARD_LIMITS.title) : '',
      filters: {
        search: null,
        queue_ids: [],
        status_ids: w < idLists / 2 ? ids(FILTER_LIMITS.ids, 2_000_000_000 + w * 1000) : [],
        assignee_ids: w < idLists / 2 ? ids(FILTER_LIMITS.ids, 2_100_000_000 + w * 1000) : [],
        mine: false,
        priority: 'critical',
        category: 'progress',
        overdue: false,
        label: null,
      },
    })),
  };
}

describe('ids per filter list', () => {
  test.each([
    ['POST', '/api/v1/issues/search'],
    ['POST', '/api/v1/statistics'],
  ])('when %s %s names 101 ids in a list, then 422 naming the list; 100 are accepted', async (method, path) => {
    const ws = await seedWorkspace(system);
    for (const list of ['queue_ids', 'status_ids', 'assignee_ids']) {
      const res = await system.api(method, path, { token: ws.admin.token, body: { [list]: ids(101) } });
      expect({ list, status: res.status, code: res.body.code, errors: res.body.errors }).toEqual({
        list,
        status: 422,
        code: 'validation_failed',
        errors: [{ path: list, message: expect.any(String) }],
      });
    }
    for (const list of ['status_ids', 'assignee_ids']) {
      expect((await system.api(method, path, { token: ws.admin.token, body: { [list]: ids(100) } })).status).toBe(200);
    }
  });

  test('when a dashboard widget names 101 ids in a list, or 1001 ids or 4001 characters of text in all, then 422 naming it', async () => {
    const ws = await seedWorkspace(system);
    const cases: Array<[unknown[], string]> = [
      [[{ type: 'stats', filters: { queue_ids: ids(101) } }], 'widgets.0.filters.queue_ids'],
      [[{ type: 'stats' }, { type: 'stats', filters: { status_ids: ids(101) } }], 'widgets.1.filters.status_ids'],
      [[{ type: 'stats', filters: { assignee_ids: ids(101) } }], 'widgets.0.filters.assignee_ids'],
      [[...Array.from({ length: 10 }, () => ({ type: 'stats', filters: { status_ids: ids(100) } })), { type: 'stats', filters: { assignee_ids: [1] } }], 'widgets'],
      [[...Array.from({ length: 20 }, () => ({ type: 'stats', title: 't'.repeat(200) })), { type: 'stats', filters: { label: 'l' } }], 'widgets'],
    ];
    for (const [widgets, path] of cases) {
      for (const [method, url] of [['POST', '/api/v1/dashboards'], ['PUT', '/api/v1/dashboards/1']]) {
        const res = await system.api(method, url, { token: ws.member.token, body: { name: 'Too big', widgets } });
        expect({ method, path, status: res.status, errors: res.body.errors }).toEqual({ method, path, status: 422, errors: [{ path, message: expect.any(String) }] });
      }
    }
    expect((await system.api('GET', '/api/v1/dashboards', { token: ws.member.token })).body).toEqual([]);
  });
});

describe('dashboards per workspace', () => {
  test('when creates race near the limit, then a workspace never holds more than 100', async () => {
    const ws = await seedWorkspace(system);
    for (let i = 0; i < 90; i++) {
      expect((await system.api('POST', '/api/v1/dashboards', { token: ws.member.token, body: { name: `Board ${i}`, widgets: [] } })).status).toBe(201);
    }
    const race = await Promise.all(
      Array.from({ length: 30 }, (_, i) => system.api('POST', '/api/v1/dashboards', { token: i % 2 ? ws.admin.token : ws.member.token, body: { name: `Race ${i}`, widgets: [] } })),
    );
    expect(race.filter((r) => r.status === 201)).toHaveLength(10);
    expect(race.filter((r) => r.status === 422)).toHaveLength(20);
    expect((await system.api('GET', '/api/v1/dashboards', { token: ws.member.token })).body).toHaveLength(DASHBOARD_LIMITS.perWorkspace);
  });

  test('when the largest dashboards allowed fill a workspace, then the 101st is 422, and every member lists them all in less than the computed bound', async () => {
    const bound = largestListBytes();
    expect(bound).toBe(4_395_801);
    const ws = await seedWorkspace(system);
    for (let n = 0; n < DASHBOARD_LIMITS.perWorkspace; n++) {
      const res = await system.api('POST', '/api/v1/dashboards', { token: n % 2 ? ws.admin.token : ws.member.token, body: largestDashboard(n) });
      expect({ n, status: res.status }).toEqual({ n, status: 201 });
    }
    const refused = await system.api('POST', '/api/v1/dashboards', { token: ws.member.token, body: { name: 'One more', widgets: [] } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([{ path: '(body)', message: expect.stringContaining(`${DASHBOARD_LIMITS.perWorkspace} dashboards`) }]);

    for (const token of [ws.member.token, ws.admin.token]) {
      const started = Date.now();
      const res = await fetch(`${system.gatewayUrl}/api/v1/dashboards`, { headers: { authorization: `Bearer ${token}` } });
      const text = await res.text();
      const ms = Date.now() - started;
      expect(res.status).toBe(200);
      const bytes = Buffer.byteLength(text);
      const listed = JSON.parse(text);
      expect(listed).toHaveLength(DASHBOARD_LIMITS.perWorkspace);
      // Within the bound, and close to it (only the short ids of this system are shorter).
      expect(bytes).toBeLessThanOrEqual(bound);
      expect(bytes).toBeGreaterThan(bound * 0.99);
      process.stdout.write(`GET /dashboards: ${bytes} bytes (bound ${bound}) in ${ms} ms\n`);
    }
  }, 120_000);
});
