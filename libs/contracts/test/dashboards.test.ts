import { Dashboard, DashboardInput, queueIdsOf, Widget } from '../src';

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

  test('a dashboard answer carries the widgets with their defaults', () => {
    const answer = { id: 1, workspace_id: 2, owner_id: 3, name: 'D', widgets: [{ type: 'stats', title: '', filters: { mine: false, overdue: false } }], created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' };
    expect(Dashboard.parse(answer)).toEqual(answer);
  });
});
