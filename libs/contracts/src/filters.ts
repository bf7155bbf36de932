import { z } from 'zod';
import { Priority } from './issues';
import { Category, Id, text } from './queues';

export const FILTER_LIMITS = { ids: 1000, search: 500, label: 100 } as const;

const ids = z.array(Id).max(FILTER_LIMITS.ids);

/**
 * Filters of search, statistics and dashboard widgets (spec: Filters). Every
 * filter given narrows the set (they AND together); absent, null, `false` and
 * an empty or blank `search` do not filter.
 */
export const Filters = z.strictObject({
  search: text(0, FILTER_LIMITS.search).nullable().optional(),
  queue_ids: ids.optional(),
  status_ids: ids.optional(),
  assignee_ids: ids.optional(),
  mine: z.boolean().default(false),
  priority: Priority.nullable().optional(),
  category: Category.nullable().optional(),
  overdue: z.boolean().default(false),
  label: text(1, FILTER_LIMITS.label).nullable().optional(),
});
export type Filters = z.infer<typeof Filters>;

/** Search and statistics work on at most this many issues (spec). */
export const SEARCH_LIMIT = 2000;
