import { SEARCH_LIMIT, type Filters } from './filters';
import type { Priority } from './issues';
import type { Category } from './queues';

/**
 * What a Filters body means, for search and statistics alike (docs/decisions.md, Filters: the same
 * filters select the same issues): every present condition ANDs with the others.
 * `queueIds: null` means every queue of the workspace (a workspace admin's reach). An id
 * list holds the only ids an issue may have there: an empty one admits no issue
 * (selectsNothing), an absent one does not filter.
 */
export interface SearchCriteria {
  workspaceId: number;
  queueIds: number[] | null;
  statusIds?: number[];
  assigneeIds?: number[];
  assigneeId?: number;
  priority?: Priority;
  category?: Category;
  /** Due strictly before this date (`YYYY-MM-DD`) and not in a `done` status. */
  dueBefore?: string;
  label?: string;
  text?: string;
  limit: number;
}

export const todayUtc = (now: Date) => now.toISOString().slice(0, 10);

/**
 * Whether a Filters body selects no issue whatever the data: it gives `queue_ids`,
 * `status_ids` or `assignee_ids` as an empty list ("only these ids", and there are none).
 * A client whose computed selection came out empty gets nothing, not the whole
 * workspace. Absent lists do not filter. Callers answer such a request without a query
 * (an empty `queue_ids` has no queue to check either); the criteria it translates to say
 * the same (selectsNothing).
 */
export function matchesNothing(filters: Filters): boolean {
  return filters.queue_ids?.length === 0 || filters.status_ids?.length === 0 || filters.assignee_ids?.length === 0;
}

/**
 * Whether criteria admit no issue before any query: an id list that is empty, from the
 * filters (matchesNothing) or because the caller can read no queue.
 */
export function selectsNothing(criteria: SearchCriteria): boolean {
  return criteria.queueIds?.length === 0 || criteria.statusIds?.length === 0 || criteria.assigneeIds?.length === 0;
}

/**
 * Translates the public Filters into criteria. `queues` are the queues to search,
 * all readable by the caller (the named `queue_ids` once checked, else every
 * readable queue; null: the whole workspace). An empty id list stays an empty list,
 * which selects nothing (matchesNothing); absent lists, `null`, `false` and a blank
 * search do not filter.
 */
export function toSearchCriteria(
  filters: Filters,
  caller: { userId: number; workspaceId: number },
  queues: number[] | null,
  now: Date,
): SearchCriteria {
  // `queue_ids: []` names no queue: whatever the caller could read, nothing is searched.
  const queueIds = filters.queue_ids?.length === 0 ? [] : queues;
  const criteria: SearchCriteria = { workspaceId: caller.workspaceId, queueIds, limit: SEARCH_LIMIT };
  if (filters.status_ids) criteria.statusIds = [...new Set(filters.status_ids)];
  if (filters.assignee_ids) criteria.assigneeIds = [...new Set(filters.assignee_ids)];
  if (filters.mine) criteria.assigneeId = caller.userId;
  if (filters.priority) criteria.priority = filters.priority;
  if (filters.category) criteria.category = filters.category;
  if (filters.overdue) criteria.dueBefore = todayUtc(now);
  if (filters.label) criteria.label = filters.label;
  const text = filters.search?.trim();
  if (text) criteria.text = text;
  return criteria;
}
