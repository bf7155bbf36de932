import { z } from 'zod';
import { Id } from './queues';

/**
 * POST /statistics answer (the request body is Filters, as for search). `total` counts
 * every matching issue; the breakdowns cover at most SEARCH_LIMIT of them, the most
 * recently updated, and `truncated` says whether that cut anything.
 */
const count = z.number().int().nonnegative();
const minutes = z.number().int().nonnegative();

const CategoryCounts = { open: count, progress: count, done: count, total: count };
const Minutes = { estimate_minutes: minutes, spent_minutes: minutes };

export const StatisticsProgress = z.object({
  ...CategoryCounts,
  /** done / total × 100, rounded to one decimal; 0 when there is nothing to count. */
  done_percent: z.number().min(0).max(100),
});

export const StatisticsQueue = z.object({ queue_id: Id, key: z.string(), ...CategoryCounts, ...Minutes });
/** `assignee_id: null` is the unassigned issues. */
export const StatisticsAssignee = z.object({ assignee_id: Id.nullable(), ...CategoryCounts, ...Minutes });

export const StatisticsResult = z.object({
  total: count,
  truncated: z.boolean(),
  /** How current the replica is (see services/statistics/README.md). */
  as_of: z.iso.datetime().nullable(),
  progress: StatisticsProgress,
  time: z.object(Minutes),
  queues: z.array(StatisticsQueue),
  assignees: z.array(StatisticsAssignee),
});
export type StatisticsResult = z.infer<typeof StatisticsResult>;
