import type { Filters } from '@tracker/contracts';
import { accessOf } from '@tracker/authz';
import type { IssuesDeps } from './deps';
import { readableQueueIds } from './guards';
import { issuesErrors } from './issues.errors';
import type { IssueSummaryRecord, RequestContext } from './model';
import { matchesNothing, toSearchCriteria } from '@tracker/contracts';

export interface SearchResult {
  /** Each with the description cut to its first characters (ISSUE_READ_LIMITS.searchDescription). */
  issues: IssueSummaryRecord[];
  /** Whether more issues matched than the cap let through. */
  truncated: boolean;
}

/**
 * Issues of readable queues matching every filter, most recently updated first, at most
 * 2000. An empty id list selects nothing (filter-criteria.ts): answered without a query.
 */
export async function searchIssues(deps: IssuesDeps, ctx: RequestContext, filters: Filters): Promise<SearchResult> {
  const access = await accessOf(deps.grants, ctx);
  let readable: number[] | null;
  if (filters.queue_ids?.length) {
    // Unknown and unreadable queues are the same 403: no existence leak. Checked even
    // when another list is empty: a request naming a hidden queue is refused alike.
    const named = [...new Set(filters.queue_ids)];
    const known = new Set(await deps.store.queues.idsInWorkspace(ctx.workspaceId, named));
    if (named.some((id) => !known.has(id) || !access.canRead(id))) throw issuesErrors.queueNotAccessible('queue_ids');
    readable = named;
  } else if (matchesNothing(filters)) {
    return { issues: [], truncated: false };
  } else {
    readable = await readableQueueIds(deps, ctx, access);
  }
  const criteria = toSearchCriteria(filters, ctx, readable, deps.clock());
  // One row past the cap tells whether the cap cut the set.
  const issues = await deps.store.search.search({ ...criteria, limit: criteria.limit + 1 });
  return { issues: issues.slice(0, criteria.limit), truncated: issues.length > criteria.limit };
}
