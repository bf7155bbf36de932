import { Dashboard, DashboardInput, DASHBOARD_LIMITS, matchesNothing, queueIdsOf, Widget } from '../src';

const pathOf = (result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[] }> } }) =>
  result.error!.issues.map((i) => i.path.join('.'));

describe('DashboardInput', () => {
  test('when a widget has only a type, then its title is "" and its filters are the empty filter', () => {
    expect(DashboardInput.parse({ name: 'D', widgets: [{ type: 'stats' }] })).toEqual({
      name: 'D',
      widgets: [{ type: 'stats', title: '', filters: { mine: false, overdue: false } }],
    });
    expect(Widget.parse({ type: 'time', filters: { queue_ids: [2], mine: true } })).toEqual({ type: 'time', title: '', filters: { queue_ids: [2], mine: true, overdue: false } });
  });

  test('names are 1 to 500 characters, widgets at most 30, titles at most 200', () => {
    const widgets = (n: number) => Array.from({ length: n }, () => ({ type: 'queues' }));
    expect(DashboardInput.safeParse({ name: 'n'.repeat(500), widgets: widgets(30) }).success).toBe(true);
    expect(pathOf(DashboardInput.safeParse({ name: 'D', widgets: widgets(31) }))).toEqual(['widgets']);
    expect(pathOf(DashboardInput.safeParse({ name: '', widgets: [] }))).toEqual(['name']);
    expect(pathOf(DashboardInput.safeParse({ name: 'n'.repeat(501), widgets: [] }))).toEqual(['name']);
    expect(pathOf(DashboardInput.safeParse({ name: 'D', widgets: [{ type: 'stats', title: 't'.repeat(201) }] }))).toEqual(['widgets.0.title']);
  });

  test('all widgets together name at most 1000 ids and hold at most 4000 characters of titles, searches and labels', () => {
    expect(DASHBOARD_LIMITS).toMatchObject({ ids: 1000, text: 4000, perWorkspace: 100 });
    const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
    const idWidgets = (last: number) => [
      ...Array.from({ length: 3 }, () => ({ type: 'stats', filters: { queue_ids: ids(100), status_ids: ids(100), assignee_ids: ids(100) } })),
      { type: 'stats', filters: { status_ids: ids(last) } },
    ];
    expect(DashboardInput.safeParse({ name: 'D', widgets: idWidgets(100) }).success).toBe(true);
    const tooMany = DashboardInput.safeParse({ name: 'D', widgets: idWidgets(101) });
    expect(pathOf(tooMany)).toEqual(['widgets.3.filters.status_ids']);
    const tooManyInAll = DashboardInput.safeParse({ name: 'D', widgets: [...idWidgets(100), { type: 'time', filters: { assignee_ids: [1] } }] });
    expect(pathOf(tooManyInAll)).toEqual(['widgets']);
    expect(tooManyInAll.error!.issues[0]!.message).toContain('1001 ids');

    const textWidgets = [
      ...Array.from({ length: 5 }, () => ({ type: 'issues', title: 't'.repeat(200), filters: { search: 's'.repeat(500) } })),
      { type: 'issues', title: 't'.repeat(200), filters: { search: 's'.repeat(200), label: 'l'.repeat(100) } },
    ];
    expect(DashboardInput.safeParse({ name: 'n'.repeat(500), widgets: textWidgets }).success).toBe(true);
    const tooLong = DashboardInput.safeParse({ name: 'D', widgets: [...textWidgets, { type: 'time', title: 'x' }] });
    expect(pathOf(tooLong)).toEqual(['widgets']);
    expect(tooLong.error!.issues[0]!.message).toContain('4001 characters');
  });

  test('totals are checked beside widgets out of bounds, each failure at its own path; a widget of the wrong shape is reported alone', () => {
    const full = Array.from({ length: 11 }, () => ({ type: 'stats', filters: { queue_ids: Array.from({ length: 100 }, (_, i) => i + 1) } }));
    expect(pathOf(DashboardInput.safeParse({ name: 'D', widgets: [{ type: 'stats', title: 't'.repeat(201) }, ...full] })).sort()).toEqual(['widgets', 'widgets.0.title']);
    expect(pathOf(DashboardInput.safeParse({ name: 'D', widgets: [{ type: 'stats', filters: { status_ids: 'all' } }, ...full] }))).toEqual(['widgets.0.filters.status_ids']);
  });

  test.each([
    ['', { name: 'D', widgets: [], extra: 1 }],
    ['widgets.0', { name: 'D', widgets: [{ type: 'stats', extra: 1 }] }],
    ['widgets.0.filters', { name: 'D', widgets: [{ type: 'stats', filters: { extra: 1 } }] }],
    ['widgets.0.type', { name: 'D', widgets: [{ type: 'pie' }] }],
  ])('when %j holds something unknown, then it is rejected there', (path, body) => {
    expect(pathOf(DashboardInput.safeParse(body))).toEqual([path]);
  });

  test('queueIdsOf lists every named queue once, ascending', () => {
    expect(queueIdsOf([{ filters: { queue_ids: [3, 1] } }, { filters: {} }, {}, { filters: { queue_ids: [1, 2] } }])).toEqual([1, 2, 3]);
  });

  test('when a widget filter has empty id lists, then they are kept as given (they select nothing) and name no queue', () => {
    const input = DashboardInput.parse({ name: 'D', widgets: [{ type: 'stats', filters: { queue_ids: [], status_ids: [], assignee_ids: [] } }] });
    expect(input.widgets[0]!.filters).toEqual({ queue_ids: [], status_ids: [], assignee_ids: [], mine: false, overdue: false });
    expect(matchesNothing(input.widgets[0]!.filters)).toBe(true);
    // No queue named: the dashboard is listed to every member, as one without queue_ids.
    expect(queueIdsOf(input.widgets)).toEqual([]);
    expect(queueIdsOf([{ filters: { queue_ids: [] } }, { filters: { queue_ids: [4] } }])).toEqual([4]);
  });

  test('a dashboard answer carries the widgets with their defaults', () => {
    const answer = { id: 1, workspace_id: 2, owner_id: 3, name: 'D', widgets: [{ type: 'stats', title: '', filters: { mine: false, overdue: false } }], created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' };
    expect(Dashboard.parse(answer)).toEqual(answer);
  });
});
