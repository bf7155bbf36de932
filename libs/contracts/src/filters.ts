import { z } from 'zod';
import { Priority } from './issues';
import { Category, Id, text } from './queues';

/**
 * Bounds of a Filters body, the same for search, statistics and dashboard widgets (`ids`:
 * per id list). Widgets are stored and listed to every member, so they must stay small;
 * DASHBOARD_LIMITS bounds a dashboard as a whole.
 */
export const FILTER_LIMITS = { ids: 100, search: 500, label: 100 } as const;

const ids = z.array(Id).max(FILTER_LIMITS.ids);

/**
 * Filters of search, statistics and dashboard widgets (spec: Filters). Every
 * filter given narrows the set (they AND together); absent, null, `false` and
 * an empty or blank `search` do not filter.
 */
export const Filters = z.strictObject({
  search: text(0, FILTER_LIMITS.search)
    .nullable()
    .meta({ description: `Free text matched in the key, title, description and comments; at most ${FILTER_LIMITS.search} characters.`, examples: ['login firefox'] })
    .optional(),
  queue_ids: ids.meta({ description: `Only these queues, at most ${FILTER_LIMITS.ids}; each must be readable by the caller (403 otherwise).`, examples: [[3]] }).optional(),
  status_ids: ids.meta({ description: `Only issues in these statuses (at most ${FILTER_LIMITS.ids} ids).`, examples: [[12, 13]] }).optional(),
  assignee_ids: ids.meta({ description: `Only issues assigned to these users (at most ${FILTER_LIMITS.ids} ids).`, examples: [[7]] }).optional(),
  mine: z.boolean().meta({ description: 'Only issues assigned to the caller.' }).default(false),
  priority: Priority.nullable().meta({ description: 'Only issues of this priority.', examples: ['critical'] }).optional(),
  category: Category.nullable().meta({ description: 'Only issues whose status is in this category.', examples: ['progress'] }).optional(),
  overdue: z.boolean().meta({ description: 'Only issues due before today (UTC) and not done.' }).default(false),
  label: text(1, FILTER_LIMITS.label).nullable().meta({ description: `Only issues carrying this label (exact match), 1 to ${FILTER_LIMITS.label} characters.`, examples: ['frontend'] }).optional(),
});
export type Filters = z.infer<typeof Filters>;

/** Search and statistics work on at most this many issues (spec). */
export const SEARCH_LIMIT = 2000;

/** Sent with every search answer: how many issues matched, counted up to SEARCH_LIMIT. */
export const SEARCH_TOTAL_HEADER = 'X-Total-Count';

/** Sent with every search answer: `true` when more issues matched than the SEARCH_LIMIT returned, else `false`. */
export const SEARCH_TRUNCATED_HEADER = 'X-Truncated';

/** The first name of SEARCH_TRUNCATED_HEADER (API 1.0.0), still sent with the same value; deprecated. */
export const LEGACY_SEARCH_TRUNCATED_HEADER = 'Search-Truncated';
