import { SEARCH_LIMIT, type Filters } from '@tracker/contracts';
import type { StatisticsDeps } from './deps';
import { allReadable, builtReplicaAndAccess, readableScope } from './guards';
import { statisticsErrors } from './statistics.errors';
import type { RequestContext, StatisticsFigures } from './model';
import { toSearchCriteria } from '@tracker/contracts';

export interface Statistics {
  figures: StatisticsFigures;
  truncated: boolean;
  asOf: Date | null;
}

/**
 * Statistics of the readable issues matching the filters, over at most SEARCH_LIMIT of
 * them (the most recently updated), computed by the replica in one query. An empty id
 * list selects nothing (filter-criteria.ts): every figure is zero, and the replica
 * answers so without a query (named queues are still checked).
 */
export async function computeStatistics(deps: StatisticsDeps, ctx: RequestContext, filters: Filters): Promise<Statistics> {
  const { status, access } = await builtReplicaAndAccess(deps, ctx);
  const named = filters.queue_ids?.length ? [...new Set(filters.queue_ids)] : null;
  const criteria = toSearchCriteria(filters, ctx, named ?? readableScope(access), deps.clock());
  // The check of named queues and the figures run together (one round trip less): the
  // figures only ever count the caller's workspace, and are dropped when the check fails.
  const [readable, figures] = await Promise.all([named ? allReadable(deps, ctx, access, named) : true, deps.replica.figures(criteria)]);
  if (!readable) throw statisticsErrors.queueNotAccessible('queue_ids');
  return { figures, truncated: figures.matched > SEARCH_LIMIT, asOf: status.asOf };
}
