import { z } from 'zod';
import { Priority } from './issues';
import { Category, CATEGORY_MEANING, Id, text } from './queues';

/**
 * Bounds of a Filters body, the same for search, statistics and dashboard widgets (`ids`:
 * per id list). Widgets are stored and listed to every member, so they must stay small;
 * DASHBOARD_LIMITS bounds a dashboard as a whole.
 */
export const FILTER_LIMITS = { ids: 100, search: 500, label: 100 } as const;

const ids = z.array(Id).max(FILTER_LIMITS.ids);

/** How an id list filters (the same words for the three lists). */
const idList = (what: string) =>
  `Only issues ${what}, at most ${FILTER_LIMITS.ids} ids. An empty list selects nothing (a search answers \`[]\`, statistics count zero, a widget shows nothing); an absent list does not filter.`;

/**
 * Filters of search, statistics and dashboard widgets. Every
 * filter given narrows the set (they AND together); an empty id list selects
 * nothing; absent, null, `false` and an empty or blank `search` do not filter.
 */
export const Filters = z.strictObject({
  search: text(0, FILTER_LIMITS.search)
    .nullable()
    .meta({
      description: `Free text matched as words in the key, title, description and comments; at most ${FILTER_LIMITS.search} characters. Empty, blank or null does not filter.`,
      examples: ['login'],
    })
    .optional(),
  queue_ids: ids.meta({ description: `${idList('in these queues')} Each queue must be readable by the caller (403 otherwise).`, examples: [[1]] }).optional(),
  status_ids: ids.meta({ description: idList('in these statuses'), examples: [[1, 2, 3, 4, 5]] }).optional(),
  assignee_ids: ids.meta({ description: idList('assigned to these users'), examples: [[1]] }).optional(),
  mine: z.boolean().meta({ description: 'Only issues assigned to the caller; `false` does not filter.', examples: [false] }).default(false),
  priority: Priority.nullable().meta({ description: 'Only issues of this priority; null does not filter.', examples: ['high'] }).optional(),
  category: Category.nullable().meta({ description: `Only issues whose status is in this category: ${CATEGORY_MEANING}; null does not filter.`, examples: ['open'] }).optional(),
  overdue: z.boolean().meta({ description: 'Only issues due before today (UTC) and not in a `done` status; `false` does not filter.', examples: [false] }).default(false),
  label: text(1, FILTER_LIMITS.label)
    .nullable()
    .meta({ description: `Only issues carrying this label, matched exactly (case-sensitively), 1 to ${FILTER_LIMITS.label} characters; null does not filter.`, examples: ['frontend'] })
    .optional(),
});
export type Filters = z.infer<typeof Filters>;

/** Search and statistics work on at most this many issues (docs/decisions.md, Truncation). */
export const SEARCH_LIMIT = 2000;

/** Sent with every search answer: how many issues matched, counted up to SEARCH_LIMIT. */
export const SEARCH_TOTAL_HEADER = 'X-Total-Count';

/** Sent with every search answer: `true` when more issues matched than the SEARCH_LIMIT returned, else `false`. */
export const SEARCH_TRUNCATED_HEADER = 'X-Truncated';

/** The first name of SEARCH_TRUNCATED_HEADER (API 1.0.0), still sent with the same value; deprecated. */
export const LEGACY_SEARCH_TRUNCATED_HEADER = 'Search-Truncated';
