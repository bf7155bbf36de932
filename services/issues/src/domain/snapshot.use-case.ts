import type { IssuesDeps } from './deps';
import type { CommentTextRecord, IssueRecord, QueueRecord } from './model';
import { nextAfterId } from './snapshot.rules';

/**
 * Pages of every queue, issue and comment with their current revision, for rebuilding
 * the statistics replica (contract: libs/contracts snapshot.ts; the JSON in routes/json.ts, each page
 * satisfying the schema the statistics service checks it against). The replica applies a row only when its
 * revision is newer, as with events, so pages may be read while changes go on. Issue and
 * comment pages are bounded in rows and bytes; comments are paged on their own, so an
 * issue with thousands of them makes no page large.
 */
export interface SnapshotPageRequest {
  afterId: number;
  limit: number;
}

/** One page of a snapshot: `nextAfterId` null on the last page. */
export type SnapshotPageOf<K extends string, T> = { [key in K]: T[] } & { nextAfterId: number | null };

export async function queuesSnapshot(deps: Pick<IssuesDeps, 'store'>, page: SnapshotPageRequest): Promise<SnapshotPageOf<'queues', QueueRecord>> {
  const queues = await deps.store.queues.page(page.afterId, page.limit);
  return { queues, nextAfterId: nextAfterId(queues.map((q) => q.id), queues.length === page.limit) };
}

export async function issuesSnapshot(deps: Pick<IssuesDeps, 'store'>, page: SnapshotPageRequest): Promise<SnapshotPageOf<'issues', IssueRecord>> {
  const { issues, more } = await deps.store.snapshot((tx) => tx.issues.page(page.afterId, page.limit));
  return { issues, nextAfterId: nextAfterId(issues.map((i) => i.id), more) };
}

export async function commentsSnapshot(deps: Pick<IssuesDeps, 'store'>, page: SnapshotPageRequest): Promise<SnapshotPageOf<'comments', CommentTextRecord>> {
  const { comments, more } = await deps.store.snapshot((tx) => tx.issues.commentsPage(page.afterId, page.limit));
  return { comments, nextAfterId: nextAfterId(comments.map((c) => c.id), more) };
}
