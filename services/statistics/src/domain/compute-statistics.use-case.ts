import { accessOf, type CallerAccess } from '@tracker/authz';
import { SEARCH_LIMIT, toSearchCriteria, type Filters, type SearchCriteria } from '@tracker/contracts';
import type { StatisticsDeps } from './deps';
import { allReadable, readableScope } from './guards';
import type { RequestContext, StatisticsFigures } from './model';
import { statisticsErrors } from './statistics.errors';

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
 *
 * The replica's status is read while the figures are computed (one round trip less on
 * every request): figures of a replica that turns out not to be built are dropped, and
 * the answer is the same 503 as before any of them.
 */
export async function computeStatistics(deps: StatisticsDeps, ctx: RequestContext, filters: Filters): Promise<Statistics> {
  const [status, { readable, figures }] = await Promise.all([deps.store.replicaReads.status(), readableFigures(deps, ctx, filters)]);
  if (!status.built) throw statisticsErrors.unavailable('the read replica is being built');
  if (!readable) throw statisticsErrors.queueNotAccessible('queue_ids');
  return statisticsOf(figures, status.asOf);
}

/**
 * The caller's rights, then the figures beside the check of named queues (together: the
 * figures only ever count the caller's workspace, and are dropped when the check fails).
 */
async function readableFigures(deps: StatisticsDeps, ctx: RequestContext, filters: Filters): Promise<{ readable: boolean; figures: StatisticsFigures }> {
  const access = await accessOf(deps.grants, ctx);
  const named = namedQueues(filters);
  const [readable, figures] = await Promise.all([named ? allReadable(deps, ctx, access, named) : true, deps.store.replicaReads.figures(statisticsCriteria(filters, ctx, access, deps.clock()))]);
  return { readable, figures };
}

const namedQueues = (filters: Filters): number[] | null => (filters.queue_ids?.length ? [...new Set(filters.queue_ids)] : null);

/** What the figures count for the caller: the queues the filters name, else every queue they may read. */
export const statisticsCriteria = (filters: Filters, ctx: RequestContext, access: CallerAccess, now: Date): SearchCriteria =>
  toSearchCriteria(filters, ctx, namedQueues(filters) ?? readableScope(access), now);

export const statisticsOf = (figures: StatisticsFigures, asOf: Date | null): Statistics => ({ figures, truncated: figures.matched > SEARCH_LIMIT, asOf });
