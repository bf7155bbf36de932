import { Filters, selectsNothing, type SearchCriteria } from '@tracker/contracts';
import type { StatisticsDeps } from '../src/domain/deps';
import { computeStatistics } from '../src/domain/compute-statistics.use-case';
import type { RequestContext, StatisticsFigures } from '../src/domain/model';

/**
 * The criteria the statistics count by: computeStatistics translates a Filters body and
 * the caller's readable queues (a member's granted ones; null for a workspace admin: the
 * whole workspace) into the criteria it hands the replica, as the issues service's search
 * does (libs/contracts filter-criteria.ts). The replica here only records what it is asked.
 */
const NOW = new Date('2026-06-15T23:59:59Z');
const NOTHING: StatisticsFigures = {
  matched: 0,
  overall: { open: 0, progress: 0, done: 0, total: 0, estimateMinutes: 0, spentMinutes: 0, donePercent: 0 },
  queues: [],
  assignees: [],
};

/** The criteria the replica is asked for, when `caller` reads `readable` (null: a workspace admin) and sends `body`. */
async function criteriaFor(body: unknown, readable: number[] | null): Promise<SearchCriteria> {
  const asked: SearchCriteria[] = [];
  const deps = {
    store: {
      replicaReads: {
        status: async () => ({ built: true, asOf: null }),
        queueIdsInWorkspace: async (_workspaceId: number, ids: number[]) => ids,
        figures: async (criteria: SearchCriteria) => {
          asked.push(criteria);
          return NOTHING;
        },
      },
    },
    grants: { explicitGrants: async () => new Map((readable ?? []).map((id) => [id, 'read-only' as const])) },
    directory: { lookupQueues: async (_workspaceId: number, ids: number[]) => ids },
    clock: () => NOW,
  } as unknown as StatisticsDeps;
  const ctx: RequestContext = { userId: 7, workspaceId: 3, workspaceRole: readable === null ? 'admin' : 'member', requestId: null };
  await computeStatistics(deps, ctx, Filters.parse(body));
  expect(asked).toHaveLength(1);
  return asked[0]!;
}

describe('the criteria statistics count by', () => {
  test('when no filter is given, then only the workspace, the readable queues and the limit remain', async () => {
    expect(await criteriaFor({}, [1, 2])).toEqual({ workspaceId: 3, queueIds: [1, 2], limit: 2000 });
    expect(await criteriaFor({}, null)).toEqual({ workspaceId: 3, queueIds: null, limit: 2000 });
  });

  test('when every filter is given, then each becomes a condition; mine is the caller and overdue is before today (UTC)', async () => {
    const body = {
      search: '  db  lag ',
      status_ids: [4, 4, 5],
      assignee_ids: [9],
      mine: true,
      priority: 'high',
      category: 'progress',
      overdue: true,
      label: 'infra',
    };
    expect(await criteriaFor(body, [1])).toEqual({
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

  test('when filters are absent, null, false or blank, then they do not filter', async () => {
    const body = { search: '   ', mine: false, priority: null, category: null, overdue: false, label: null };
    expect(await criteriaFor(body, [1])).toEqual({ workspaceId: 3, queueIds: [1], limit: 2000 });
  });

  test('when an id list is empty, then it stays an empty list and the criteria select nothing', async () => {
    expect(await criteriaFor({ queue_ids: [], status_ids: [], assignee_ids: [] }, null)).toEqual({
      workspaceId: 3,
      queueIds: [],
      statusIds: [],
      assigneeIds: [],
      limit: 2000,
    });
    for (const list of ['queue_ids', 'status_ids', 'assignee_ids']) {
      expect(selectsNothing(await criteriaFor({ [list]: [] }, [1]))).toBe(true);
    }
    expect(selectsNothing(await criteriaFor({}, [1]))).toBe(false);
  });
});
