import { matchesNothing, selectsNothing, toSearchCriteria, todayUtc, type Filters } from '../src';

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

  test('when filters are absent, null, false or blank, then they do not filter', () => {
    expect(
      toSearchCriteria({ search: ' ', priority: null, category: null, label: null, mine: false, overdue: false }, caller, [1], now),
    ).toEqual({ workspaceId: 2, queueIds: [1], limit: 2000 });
    expect(toSearchCriteria({ search: '', mine: false, overdue: false }, caller, null, now)).toEqual({ workspaceId: 2, queueIds: null, limit: 2000 });
  });
});

describe('an empty id list selects nothing', () => {
  const absent: Array<[string, Filters]> = [
    ['no filter at all', none],
    ['every list absent and the rest null or blank', { search: ' ', priority: null, category: null, label: null, mine: false, overdue: false }],
    ['non-empty lists', { ...none, queue_ids: [1], status_ids: [2], assignee_ids: [3] }],
  ];

  test.each(absent)('when %s, then the filters may match issues', (_name, filters) => {
    expect(matchesNothing(filters)).toBe(false);
    expect(selectsNothing(toSearchCriteria(filters, caller, [1], now))).toBe(false);
    expect(selectsNothing(toSearchCriteria(filters, caller, null, now))).toBe(false);
  });

  test.each(['queue_ids', 'status_ids', 'assignee_ids'] as const)('when %s is [], then the filters match nothing, whatever else they say', (list) => {
    const filters = { ...none, queue_ids: [1], status_ids: [2], assignee_ids: [3], search: 'disk', [list]: [] };
    expect(matchesNothing(filters)).toBe(true);
    expect(matchesNothing({ ...none, [list]: [] })).toBe(true);
    // The criteria say the same, for a member's queues and for a workspace admin's whole workspace.
    expect(selectsNothing(toSearchCriteria(filters, caller, [1], now))).toBe(true);
    expect(selectsNothing(toSearchCriteria({ ...none, [list]: [] }, caller, null, now))).toBe(true);
  });

  test('when status_ids or assignee_ids is [], then the criteria keep it as a condition no issue meets', () => {
    expect(toSearchCriteria({ ...none, status_ids: [] }, caller, [1], now)).toEqual({ workspaceId: 2, queueIds: [1], statusIds: [], limit: 2000 });
    expect(toSearchCriteria({ ...none, assignee_ids: [] }, caller, null, now)).toEqual({ workspaceId: 2, queueIds: null, assigneeIds: [], limit: 2000 });
  });

  test('when queue_ids is [], then no queue is searched, whatever the caller could read (null: the whole workspace)', () => {
    expect(toSearchCriteria({ ...none, queue_ids: [] }, caller, null, now)).toEqual({ workspaceId: 2, queueIds: [], limit: 2000 });
    expect(toSearchCriteria({ ...none, queue_ids: [] }, caller, [1, 2], now)).toEqual({ workspaceId: 2, queueIds: [], limit: 2000 });
  });

  test('when an id list is null (should the schema ever admit it), then it does not filter, as absent', () => {
    const nulls = { ...none, queue_ids: null, status_ids: null, assignee_ids: null } as unknown as Filters;
    expect(matchesNothing(nulls)).toBe(false);
    expect(toSearchCriteria(nulls, caller, [1], now)).toEqual({ workspaceId: 2, queueIds: [1], limit: 2000 });
  });

  test('when the caller can read no queue, then the criteria select nothing although the filters could match', () => {
    expect(matchesNothing(none)).toBe(false);
    expect(selectsNothing(toSearchCriteria(none, caller, [], now))).toBe(true);
  });
});

describe('dates', () => {
  test('today is the UTC date', () => {
    expect(todayUtc(new Date('2026-01-01T00:30:00+02:00'))).toBe('2025-12-31');
  });
});
