import type { SearchCriteria } from '@tracker/contracts';
import type { IdempotentRequests, Once } from '@tracker/kit';
import type { DashboardRecord, ReplicaStatus, StatisticsFigures } from './model';
import type { CommentRow, IssueRow, QueueRow } from './replica';
import type { HeldWorkspaces, ReplicaRefs } from './workspace-rule';

/**
 * The ports of the use cases, the consumer and the rebuild: what they need from storage
 * and from the issues service, declared here so the domain depends on no implementation;
 * src/data-access implements them.
 */

/** Port: reads of the replica (data-access/replica-reads.repository.ts). */
export interface ReplicaReader {
  status(): Promise<ReplicaStatus>;
  /** Which of `ids` are queues of the workspace in the replica (a new queue only once its event arrived). */
  queueIdsInWorkspace(workspaceId: number, ids: number[]): Promise<number[]>;
  figures(criteria: SearchCriteria): Promise<StatisticsFigures>;
}

/**
 * Port: writes to the replica inside one transaction (data-access/replica-writes.repository.ts).
 * Every write applies a row only when its revision is newer than the stored one, decided
 * by the database in the writing statement, so concurrent, repeated and reordered writes
 * converge on the newest state. `eventAt` is the occurred_at of the newest event that
 * carries the rows (null: snapshot). Each answers the ids of the rows it wrote.
 */
export interface ReplicaWriter {
  applyQueues(rows: QueueRow[], eventAt: Date | null): Promise<number[]>;
  applyIssues(rows: IssueRow[], eventAt: Date | null): Promise<number[]>;
  /**
   * Comments never change: inserted once by id (a missing text is filled in later). A
   * comment of an issue the replica does not hold is skipped (never the case for an
   * event, whose issue state is applied first).
   */
  addComments(rows: CommentRow[], eventAt: Date | null): Promise<number[]>;
  /** What the replica holds about these rows (workspace-rule.ts): their workspaces, and each comment's issue. */
  heldWorkspaces(refs: ReplicaRefs): Promise<HeldWorkspaces>;
}

/** Port: what the consumer and the rebuild write to the replica, each in transactions of its own. */
export interface ReplicaStore {
  /**
   * Runs `work` in one transaction. `bulk`: a rebuild's page, whose statements may run
   * longer than a request's (REBUILD_STATEMENT_TIMEOUT_MS instead of DATABASE_STATEMENT_TIMEOUT_MS).
   */
  transaction<T>(work: (writer: ReplicaWriter) => Promise<T>, options?: { bulk?: boolean }): Promise<T>;
  /** Marks the replica not built and deletes every replicated row (dashboards stay); a bulk transaction. */
  reset(): Promise<void>;
  isBuilt(): Promise<boolean>;
  /** Marks the replica built; `snapshotAt` (when the rebuild began) becomes the floor of as_of. */
  markBuilt(snapshotAt: Date): Promise<void>;
}

/**
 * Port: the issues service's snapshot, paged by id (libs/contracts/src/snapshot.ts;
 * data-access/issues-snapshot.client.ts). Issue and comment pages are bounded in bytes
 * too, so a page may be short while more follow: only `nextAfterId: null` ends a walk.
 */
export interface IssuesSnapshot {
  queues(afterId: number, limit: number): Promise<{ rows: QueueRow[]; nextAfterId: number | null }>;
  issues(afterId: number, limit: number): Promise<{ rows: IssueRow[]; nextAfterId: number | null }>;
  comments(afterId: number, limit: number): Promise<{ rows: CommentRow[]; nextAfterId: number | null }>;
}

/** Port: one rebuild at a time per replica (data-access/rebuild-lock.ts). */
export interface RebuildLock {
  /** True if this process now holds the lock. */
  tryAcquire(): Promise<boolean>;
  /** Waits until this process holds the lock. */
  acquire(): Promise<void>;
  release(): Promise<void>;
}

export interface NewDashboard {
  workspaceId: number;
  ownerId: number;
  name: string;
  widgets: unknown[];
  queueIds: number[];
}

/** Port: this service's own dashboards (data-access/dashboards.repository.ts). */
export interface DashboardsRepository {
  /**
   * Dashboards of the workspace whose queue ids are all within `readable`, oldest first;
   * `readable: null` means every dashboard of the workspace (a workspace admin).
   */
  listVisible(workspaceId: number, readable: number[] | null): Promise<DashboardRecord[]>;
  find(workspaceId: number, id: number): Promise<DashboardRecord | null>;
  /** Makes other transactions creating in this workspace wait until this one ends. */
  lockWorkspace(workspaceId: number): Promise<void>;
  countInWorkspace(workspaceId: number): Promise<number>;
  insert(dashboard: NewDashboard): Promise<DashboardRecord>;
  replace(id: number, changes: Pick<NewDashboard, 'name' | 'widgets' | 'queueIds'>, at: Date): Promise<DashboardRecord>;
}

/** The repositories usable inside a transaction. */
export interface Repositories {
  dashboards: DashboardsRepository;
}

/** The repositories over the pool, the same ones inside one transaction, and the replica's reads and writes. */
export interface Store extends Repositories {
  /** Idempotency-Keys of POST /dashboards (libs/kit idempotency.ts). */
  idempotentRequests: IdempotentRequests;
  replicaReads: ReplicaReader;
  /** The consumer's and the rebuild's: no request writes the replica. */
  replicaWrites: ReplicaStore;
  /** One transaction; with `once` (an Idempotency-Key), claimed and answered inside it. */
  transaction<T>(work: (tx: Repositories) => Promise<T>, once?: Once<T>): Promise<T>;
}
