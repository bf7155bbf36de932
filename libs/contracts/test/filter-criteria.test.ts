import { toSearchCriteria, todayUtc } from '../src';

const caller = { userId: 9, workspaceId: 2 };
const now = new Date('2026-03-01T23:30:00-05:00');
const none = { mine: false, overdue: false };

describe('filter translation', () => {
  test('when no filter is given, then only the workspace, the readable queues and the cap apply', () => {
    expect(toSearchCriteria(none, caller, [1, 2], now)).toEqual({ workspaceId: 2, queueIds: [1, 2], limit: 2000 });
    expect(toSearchCriteria(none, caller, null, now)).toEqual({ workspaceId: 2, queueIds: null, limit: 2000 });
  });

  test('when every filter is given, then each becomes one condition', () => {
    expect(
      toSearchCriteria(
        { search: '  disk full ', status_ids: [3, 3, 4], assignee_ids: [5], mine: true, priority: 'high', category: 'open', overdue: true, label: 'infra' },
        caller,
        [1],
        now,
      ),
    ).toEqual({
      workspaceId: 2,
      queueIds: [1],
      statusIds: [3, 4],
      assigneeIds: [5],
      assigneeId: 9,
      priority: 'high',
      category: 'open',
      dueBefore: '2026-03-02',
      label: 'infra',
      text: 'disk full',
      limit: 2000,
    });
  });

  test('when filters are null, false, empty or blank, then they do not filter', () => {
    expect(
      toSearchCriteria({ search: ' ', status_ids: [], assignee_ids: [], priority: null, category: null, label: null, mine: false, overdue: false }, caller, [1], now),
    ).toEqual({ workspaceId: 2, queueIds: [1], limit: 2000 });
  });

  test('today is the UTC date', () => {
    expect(todayUtc(new Date('2026-01-01T00:30:00+02:00'))).toBe('2025-12-31');
  });
});
