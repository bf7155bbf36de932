import { z } from 'zod';
import { SEARCH_LIMIT } from './filters';
import { Id } from './queues';

/**
 * POST /statistics answer (the request body is Filters, as for search). `total` counts
 * every matching issue; the breakdowns cover at most SEARCH_LIMIT of them, the most
 * recently updated, and `truncated` says whether that cut anything.
 */
const count = z.number().int().nonnegative();
const minutes = z.number().int().nonnegative();

const counted = `counted issues (at most ${SEARCH_LIMIT}, the most recently updated)`;
const CategoryCounts = {
  open: count.meta({ description: `How many of the ${counted} are in an \`open\` status.` }),
  progress: count.meta({ description: `How many of the ${counted} are in a \`progress\` status.` }),
  done: count.meta({ description: `How many of the ${counted} are in a \`done\` status (cancelled included).` }),
  total: count.meta({ description: `How many issues were counted here: \`open\` + \`progress\` + \`done\`.` }),
};
const Minutes = {
  estimate_minutes: minutes.meta({ description: `The estimates of the ${counted}, in minutes, added up.` }),
  spent_minutes: minutes.meta({ description: `The minutes the worklogs of the ${counted} record, added up.` }),
};

export const StatisticsProgress = z.object({
  ...CategoryCounts,
  /** done / total × 100, rounded to one decimal; 0 when there is nothing to count. */
  done_percent: z
    .number()
    .min(0)
    .max(100)
    .meta({ description: '`done` / `total` × 100, rounded to one decimal (half away from zero); 0 when nothing is counted.' }),
});

export const StatisticsQueue = z.object({
  queue_id: Id.meta({ description: 'The queue.' }),
  key: z.string().meta({ description: 'The queue key.' }),
  ...CategoryCounts,
  ...Minutes,
});
/** `assignee_id: null` is the unassigned issues. */
export const StatisticsAssignee = z.object({
  assignee_id: Id.nullable().meta({ description: 'The assignee; null for the unassigned issues.' }),
  ...CategoryCounts,
  ...Minutes,
});

export const StatisticsResult = z.object({
  total: count.meta({ description: `How many readable issues match the filters, all of them (also past ${SEARCH_LIMIT}, unlike every other figure).` }),
  truncated: z.boolean().meta({ description: `Whether more than ${SEARCH_LIMIT} issues matched, so the breakdowns cover only the ${SEARCH_LIMIT} most recently updated.` }),
  /** How current the replica is (see services/statistics/README.md). */
  as_of: z.iso
    .datetime()
    .nullable()
    .meta({ description: 'How current the figures are: when the newest change they include happened (UTC), never earlier than the last rebuild of the statistics replica; null while nothing has been replicated.' }),
  progress: StatisticsProgress.meta({ description: `The ${counted} by status category.` }),
  time: z.object(Minutes).meta({ description: `Estimated and recorded work of the ${counted}.` }),
  queues: z.array(StatisticsQueue).meta({ description: 'One entry per queue with at least one counted issue, by queue key.' }),
  assignees: z.array(StatisticsAssignee).meta({ description: 'One entry per assignee with at least one counted issue: the unassigned (`assignee_id: null`) first, then by user id.' }),
});
export type StatisticsResult = z.infer<typeof StatisticsResult>;

/**
 * GET /dashboards/{dashboard_id}/statistics answer: what POST /statistics answers for each
 * widget's filters, in the widgets' order, so a dashboard is drawn with one request.
 */
export const DashboardStatistics = z.object({
  dashboard_id: Id.meta({ description: 'The dashboard.' }),
  widgets: z
    .array(StatisticsResult)
    .meta({ description: 'One entry per widget, in the dashboard\'s order: the statistics of its filters, as POST /api/v1/statistics answers them to the caller.' }),
});
export type DashboardStatistics = z.infer<typeof DashboardStatistics>;
