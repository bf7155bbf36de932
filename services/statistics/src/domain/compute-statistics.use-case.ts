import { SEARCH_LIMIT, type Filters } from '@tracker/contracts';
import type { StatisticsDeps } from './deps';
import { builtReplicaAndAccess, readableScope, requireReadable } from './guards';
import type { RequestContext, StatisticsFigures } from './model';
import { toSearchCriteria } from '@tracker/contracts';

export interface Statistics {
  figures: StatisticsFigures;
  truncated: boolean;
  asOf: Date | null;
}

/**
 * Statistics of the readable issues matching the filters, over at most SEARCH_LIMIT of
 * them (the most recently updated), computed by the replica in one query.
 */
export async function computeStatistics(deps: StatisticsDeps, ctx: RequestContext, filters: Filters): Promise<Statistics> {
  const { status, access } = await builtReplicaAndAccess(deps, ctx);
  let queues: number[] | null;
  if (filters.queue_ids?.length) {
    await requireReadable(deps, ctx, access, filters.queue_ids, 'queue_ids');
    queues = [...new Set(filters.queue_ids)];
  } else {
    queues = readableScope(access);
  }
  const figures = await deps.replica.figures(toSearchCriteria(filters, ctx, queues, deps.clock()));
  return { figures, truncated: figures.matched > SEARCH_LIMIT, asOf: status.asOf };
}
