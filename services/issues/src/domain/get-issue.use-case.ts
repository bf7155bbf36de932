import type { CallerAccess } from '@tracker/authz';
import type { IssuesDeps } from './deps';
import { readableIssue, readableIssueLoaded } from './guards';
import type { IssueDetails, IssueListName, IssueLists, ListPageOf, RequestContext } from './model';

/** The queues whose issues the caller may see as links and subtasks: null for every queue (a workspace admin). */
const readableFilter = (access: CallerAccess) => (access.isWorkspaceAdmin ? null : access.grantedQueueIds());

/**
 * An issue with the newest of its comments, worklogs and history, and of its links and
 * subtasks where the caller can read the other issue, with how many there are of each
 * (ISSUE_READ_LIMITS: the read stays bounded however much the issue holds).
 */
export async function getIssue(deps: IssuesDeps, ctx: RequestContext, key: string): Promise<IssueDetails> {
  return readableIssueLoaded(deps, ctx, key, (found, access) => deps.store.reads.findWithAttachments(ctx.workspaceId, found, readableFilter(access)));
}

/** One page of a list of a readable issue (GET /issues/{key}/comments, …), oldest first. */
export async function listIssueItems<L extends IssueListName>(
  deps: IssuesDeps,
  ctx: RequestContext,
  key: string,
  list: L,
  page: { afterId: number; limit: number },
): Promise<ListPageOf<IssueLists[L]>> {
  const { issue, access } = await readableIssue(deps, ctx, key);
  return deps.store.reads.page(list, issue.id, page.afterId, page.limit, readableFilter(access));
}
