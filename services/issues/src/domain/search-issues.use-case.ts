import type { Filters } from '@tracker/contracts';
import { accessOf } from '@tracker/authz';
import type { IssuesDeps } from './deps';
import { readableQueueIds } from './guards';
import { issuesErrors } from './issues.errors';
import type { IssueRecord, RequestContext } from './model';
import { toSearchCriteria } from '@tracker/contracts';

/** Issues of readable queues matching every filter, most recently updated first, at most 2000. */
export async function searchIssues(deps: IssuesDeps, ctx: RequestContext, filters: Filters): Promise<IssueRecord[]> {
  const access = await accessOf(deps.grants, ctx);
  let readable: number[] | null;
  if (filters.queue_ids?.length) {
    // Unknown and unreadable queues are the same 403 (decisions.md): no existence leak.
    const named = [...new Set(filters.queue_ids)];
    const known = new Set(await deps.store.queues.idsInWorkspace(ctx.workspaceId, named));
    if (named.some((id) => !known.has(id) || !access.canRead(id))) throw issuesErrors.queueNotAccessible('queue_ids');
    readable = named;
  } else {
    readable = await readableQueueIds(deps, ctx, access);
  }
  return deps.store.search.search(toSearchCriteria(filters, ctx, readable, deps.clock()));
}
