import { ISSUE_LIMITS, type WorklogCreate } from '@tracker/contracts';
import type { Once } from '@tracker/kit';
import type { IssuesDeps } from './deps';
import { worklogAdded } from './events';
import { writableIssue } from './guards';
import { issuesErrors } from './issues.errors';
import type { RequestContext, WorklogRecord } from './model';

/**
 * Time spent by the token owner; the issue's `spent_minutes` grows with it, its version
 * stays. An issue holds at most ISSUE_LIMITS.worklogsPerIssue worklogs (counted with the
 * issue row locked, as comments).
 */
export async function addWorklog(deps: IssuesDeps, ctx: RequestContext, key: string, input: WorklogCreate, once?: Once<WorklogRecord>): Promise<WorklogRecord> {
  const { issue } = await writableIssue(deps, ctx, key);
  return deps.store.transaction(async (tx) => {
    const at = deps.clock();
    const touched = await tx.issues.touch(issue.id, at, input.minutes);
    const max = ISSUE_LIMITS.worklogsPerIssue;
    const worklog = await tx.issues.addWorklog(issue.id, ctx.userId, input.minutes, input.description, at, max);
    if (!worklog) throw issuesErrors.issueFull('worklogs', max);
    await tx.outbox.append(worklogAdded(ctx, touched, worklog));
    return worklog;
  }, once);
}
