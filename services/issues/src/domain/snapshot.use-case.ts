import type { IssuesDeps } from './deps';
import { issueState, queueState } from './events';

/**
 * Pages of every queue and issue with their current revision, for rebuilding the
 * statistics replica (contract: SnapshotPage in @tracker/contracts internal.ts). The
 * replica applies a row only when its revision is newer, as with events, so pages
 * may be read while changes go on.
 */
const nextAfter = (ids: number[], limit: number) => (ids.length === limit ? ids[ids.length - 1]! : null);

export async function queuesSnapshot(deps: Pick<IssuesDeps, 'store'>, page: { after_id: number; limit: number }) {
  const queues = await deps.store.queues.page(page.after_id, page.limit);
  return {
    queues: queues.map((q) => ({ revision: q.revision, queue: queueState(q) })),
    next_after_id: nextAfter(queues.map((q) => q.id), page.limit),
  };
}

export async function issuesSnapshot(deps: Pick<IssuesDeps, 'store'>, page: { after_id: number; limit: number }) {
  const issues = await deps.store.issues.page(page.after_id, page.limit);
  return {
    issues: issues.map(({ issue, comments }) => ({ revision: issue.revision, issue: issueState(issue), comments })),
    next_after_id: nextAfter(issues.map(({ issue }) => issue.id), page.limit),
  };
}
