import { Filters, selectsNothing, toSearchCriteria } from '@tracker/contracts';
import { isDatabaseUnavailable } from '@tracker/kit';

const caller = { userId: 7, workspaceId: 3 };
const NOW = new Date('2026-06-15T23:59:59Z');

describe('toSearchCriteria', () => {
  test('when no filter is given, then only the workspace, the readable queues and the limit remain', () => {
    expect(toSearchCriteria(Filters.parse({}), caller, [1, 2], NOW)).toEqual({ workspaceId: 3, queueIds: [1, 2], limit: 2000 });
    expect(toSearchCriteria(Filters.parse({}), caller, null, NOW)).toEqual({ workspaceId: 3, queueIds: null, limit: 2000 });
  });

  test('when every filter is given, then each becomes a condition; mine is the caller and overdue is before today (UTC)', () => {
    const filters = Filters.parse({
      search: '  db  lag ',
      status_ids: [4, 4, 5],
      assignee_ids: [9],
      mine: true,
      priority: 'high',
      category: 'progress',
      overdue: true,
      label: 'infra',
    });
    expect(toSearchCriteria(filters, caller, [1], NOW)).toEqual({
      workspaceId: 3,
      queueIds: [1],
      statusIds: [4, 5],
      assigneeIds: [9],
      assigneeId: 7,
      priority: 'high',
      category: 'progress',
      dueBefore: '2026-06-15',
      label: 'infra',
      text: 'db  lag',
      limit: 2000,
    });
  });

  test('when filters are absent, null, false or blank, then they do not filter', () => {
    const filters = Filters.parse({ search: '   ', mine: false, priority: null, category: null, overdue: false, label: null });
    expect(toSearchCriteria(filters, caller, [1], NOW)).toEqual({ workspaceId: 3, queueIds: [1], limit: 2000 });
  });

  test('when an id list is empty, then it stays an empty list and the criteria select nothing', () => {
    const empty = Filters.parse({ queue_ids: [], status_ids: [], assignee_ids: [] });
    expect(toSearchCriteria(empty, caller, null, NOW)).toEqual({ workspaceId: 3, queueIds: [], statusIds: [], assigneeIds: [], limit: 2000 });
    for (const list of ['queue_ids', 'status_ids', 'assignee_ids']) {
      expect(selectsNothing(toSearchCriteria(Filters.parse({ [list]: [] }), caller, [1], NOW))).toBe(true);
    }
    expect(selectsNothing(toSearchCriteria(Filters.parse({}), caller, [1], NOW))).toBe(false);
  });
});

describe('isDatabaseUnavailable', () => {
  const adapterError = (cause: Record<string, unknown>) => ({ name: 'PrismaClientKnownRequestError', code: 'P2010', meta: { driverAdapterError: { cause } } });
  test.each([
    ['an unreachable server', adapterError({ kind: 'DatabaseNotReachable' }), true],
    ['a missing table (not migrated)', adapterError({ kind: 'TableDoesNotExist' }), true],
    ['an admin shutdown', adapterError({ kind: 'postgres', originalCode: '57P01' }), true],
    ['a pool timeout', { name: 'PrismaClientKnownRequestError', code: 'P2024' }, true],
    ['a syntax error', adapterError({ kind: 'postgres', originalCode: '42601' }), false],
    ['a unique violation', adapterError({ kind: 'UniqueConstraintViolation' }), false],
    ['a plain error', new Error('boom'), false],
  ])('%s → %s', (_name, error, expected) => {
    expect(isDatabaseUnavailable(error)).toBe(expected);
  });
});
