import { backoffDelay } from '@tracker/kit';
import type { CommentRow, IssueRow, QueueRow, ReplicaStore } from './replica';

/**
 * Port: the issues service's snapshot, paged by id (libs/contracts/src/snapshot.ts). Issue
 * and comment pages are bounded in bytes too, so a page may be short while more follow:
 * only `nextAfterId: null` ends a walk.
 */
export interface IssuesSnapshot {
  queues(afterId: number, limit: number): Promise<{ rows: QueueRow[]; nextAfterId: number | null }>;
  issues(afterId: number, limit: number): Promise<{ rows: IssueRow[]; nextAfterId: number | null }>;
  comments(afterId: number, limit: number): Promise<{ rows: CommentRow[]; nextAfterId: number | null }>;
}

export interface RebuildDeps {
  replica: ReplicaStore;
  snapshot: IssuesSnapshot;
  clock: () => Date;
  log: { info: (obj: object, msg: string) => void; warn: (obj: object, msg: string) => void };
}

export interface RebuildOptions {
  /** Delete every replicated row first (503 until done); otherwise apply over what is there. */
  reset: boolean;
  pageSize: number;
  /** Attempts per page before the rebuild gives up. */
  pageAttempts?: number;
  retryDelayMs?: number;
  /** Checked between pages: a stopping process leaves the replica unbuilt, to be finished later. */
  shouldStop?: () => boolean;
}

export interface RebuildResult {
  completed: boolean;
  snapshotAt: Date;
  queues: number;
  issues: number;
  comments: number;
  /** Rows that were newer than the replica's and were written. */
  applied: number;
}

/**
 * Pages through the snapshot (queues, then issues, then comments) and applies every row
 * with the same revision rule as events, so it can run while the consumer keeps applying
 * events: whichever of the two holds the newer revision of a row wins, in any order. A
 * comment whose issue is not in the replica (created after the issue pages were read) is
 * skipped: its `comment.added` event carries it. The replica is marked built only at the
 * end. `snapshotAt` is taken before the first page: every change made before it is in
 * some page or in an event already applied, so it is the floor of as_of. Page
 * transactions are `bulk` (the rebuild's own statement timeout).
 */
export async function rebuildReplica(deps: RebuildDeps, options: RebuildOptions): Promise<RebuildResult> {
  const { replica, snapshot } = deps;
  if (options.reset) await replica.reset();
  const snapshotAt = deps.clock();
  const result: RebuildResult = { completed: false, snapshotAt, queues: 0, issues: 0, comments: 0, applied: 0 };
  const attempt = retrying(deps, options);

  for (let after: number | null = 0; after !== null; ) {
    if (options.shouldStop?.()) return result;
    const from: number = after;
    const page = await attempt(`queues after ${from}`, () => snapshot.queues(from, options.pageSize));
    result.queues += page.rows.length;
    result.applied += (await replica.transaction((w) => w.applyQueues(page.rows, null), { bulk: true })).length;
    after = page.nextAfterId;
  }
  for (let after: number | null = 0; after !== null; ) {
    if (options.shouldStop?.()) return result;
    const from: number = after;
    const page = await attempt(`issues after ${from}`, () => snapshot.issues(from, options.pageSize));
    result.issues += page.rows.length;
    result.applied += (await replica.transaction((w) => w.applyIssues(page.rows, null), { bulk: true })).length;
    after = page.nextAfterId;
  }
  for (let after: number | null = 0; after !== null; ) {
    if (options.shouldStop?.()) return result;
    const from: number = after;
    const page = await attempt(`comments after ${from}`, () => snapshot.comments(from, options.pageSize));
    result.comments += page.rows.length;
    result.applied += (await replica.transaction((w) => w.addComments(page.rows, null), { bulk: true })).length;
    after = page.nextAfterId;
  }
  await replica.markBuilt(snapshotAt);
  result.completed = true;
  deps.log.info({ ...result, snapshotAt: snapshotAt.toISOString() }, 'replica rebuilt from the issues snapshot');
  return result;
}

function retrying(deps: RebuildDeps, options: RebuildOptions) {
  const attempts = options.pageAttempts ?? 5;
  const delay = options.retryDelayMs ?? 1000;
  return async <T>(what: string, call: () => Promise<T>): Promise<T> => {
    for (let n = 1; ; n++) {
      try {
        return await call();
      } catch (err) {
        if (n >= attempts || options.shouldStop?.()) throw err;
        deps.log.warn({ err: err instanceof Error ? err.message : String(err), page: what, attempt: n }, 'snapshot page failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, backoffDelay(n, { baseMs: delay })));
      }
    }
  };
}
