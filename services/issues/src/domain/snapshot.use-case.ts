import type { z } from 'zod';
import type { SnapshotCommentsPage, SnapshotIssuesPage, SnapshotQueuesPage } from '@tracker/contracts';
import type { IssuesDeps } from './deps';
import { issueState, queueState } from './events';
import { nextAfterId } from './snapshot.rules';

/**
 * Pages of every queue, issue and comment with their current revision, for rebuilding
 * the statistics replica (contract: libs/contracts snapshot.ts; each answer satisfies the
 * page schema the statistics service checks it against). The replica applies a row only
 * when its revision is newer, as with events, so pages may be read while changes go on. Issue and comment pages are bounded in rows
 * and bytes; comments are paged on their own, so an issue with thousands of them makes no
 * page large.
 */
type Page = { after_id: number; limit: number };

export async function queuesSnapshot(deps: Pick<IssuesDeps, 'store'>, page: Page) {
  const queues = await deps.store.queues.page(page.after_id, page.limit);
  const ids = queues.map((q) => q.id);
  return {
    queues: queues.map((q) => ({ revision: q.revision, queue: queueState(q) })),
    next_after_id: nextAfterId(ids, ids.length === page.limit),
  } satisfies z.input<typeof SnapshotQueuesPage>;
}

export async function issuesSnapshot(deps: Pick<IssuesDeps, 'store'>, page: Page) {
  const { issues, more } = await deps.store.snapshot((tx) => tx.issues.page(page.after_id, page.limit));
  return {
    issues: issues.map((issue) => ({ revision: issue.revision, issue: issueState(issue) })),
    next_after_id: nextAfterId(issues.map((i) => i.id), more),
  } satisfies z.input<typeof SnapshotIssuesPage>;
}

export async function commentsSnapshot(deps: Pick<IssuesDeps, 'store'>, page: Page) {
  const { comments, more } = await deps.store.snapshot((tx) => tx.issues.commentsPage(page.after_id, page.limit));
  return { comments, next_after_id: nextAfterId(comments.map((c) => c.id), more) } satisfies z.input<typeof SnapshotCommentsPage>;
}
