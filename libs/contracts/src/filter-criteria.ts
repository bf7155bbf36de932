import { SEARCH_LIMIT, type Filters } from './filters';
import type { Priority } from './issues';
import type { Category } from './queues';

/**
 * What a Filters body means, for search and statistics alike (README, Behaviour worth knowing: the same
 * filters select the same issues): every present condition ANDs with the others.
 * `queueIds: null` means every queue of the workspace (a workspace admin's reach).
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
 * Translates the public Filters into criteria. `queues` are the queues to search,
 * all readable by the caller (the named `queue_ids` once checked, else every
 * readable queue; null: the whole workspace). Empty arrays, `null`, `false` and a
 * blank search do not filter.
 */
export function toSearchCriteria(
  filters: Filters,
  caller: { userId: number; workspaceId: number },
  queues: number[] | null,
  now: Date,
): SearchCriteria {
  const criteria: SearchCriteria = { workspaceId: caller.workspaceId, queueIds: queues, limit: SEARCH_LIMIT };
  if (filters.status_ids?.length) criteria.statusIds = [...new Set(filters.status_ids)];
  if (filters.assignee_ids?.length) criteria.assigneeIds = [...new Set(filters.assignee_ids)];
  if (filters.mine) criteria.assigneeId = caller.userId;
  if (filters.priority) criteria.priority = filters.priority;
  if (filters.category) criteria.category = filters.category;
  if (filters.overdue) criteria.dueBefore = todayUtc(now);
  if (filters.label) criteria.label = filters.label;
  const text = filters.search?.trim();
  if (text) criteria.text = text;
  return criteria;
}
