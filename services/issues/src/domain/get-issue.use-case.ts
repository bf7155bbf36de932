import type { IssuesDeps } from './deps';
import { readableIssue } from './guards';
import type { IssueDetails, RequestContext } from './model';

/** An issue with its comments, worklogs and history; links and subtasks only where the caller can read the other issue. */
export async function getIssue(deps: IssuesDeps, ctx: RequestContext, key: string): Promise<IssueDetails> {
  const { issue, access } = await readableIssue(deps, ctx, key);
  const attached = await deps.store.reads.attachments(issue.id);
  return {
    ...issue,
    ...attached,
    links: attached.links.filter((link) => access.canRead(link.issue.queueId)),
    subtasks: attached.subtasks.filter((sub) => access.canRead(sub.queueId)),
  };
}
