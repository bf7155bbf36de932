import type { z } from 'zod';
import type { IssueState, QueueState } from '@tracker/events';
import type { HeldWorkspaces, ReplicaRefs } from './workspace-rule';

/** The replica's model: the issues service's aggregates as its events and snapshot carry them. */
export type QueueStateData = z.infer<typeof QueueState>;
export type IssueStateData = z.infer<typeof IssueState>;

/** A queue state with the aggregate revision it was taken at. */
export interface QueueRow {
  revision: number;
  queue: QueueStateData;
}

/** An issue state with the aggregate revision it was taken at. */
export interface IssueRow {
  revision: number;
  issue: IssueStateData;
}

/** Comment text for free-text search; `body: null` when the source did not carry it. */
export interface CommentRow {
  id: number;
  issueId: number;
  body: string | null;
}

/**
 * Port: writes to the replica. Every write applies a row only when its revision is
 * newer than the stored one, decided by the database in the writing statement, so
 * concurrent, repeated and reordered writes converge on the newest state.
 * `eventAt` is the occurred_at of the newest event that carries the rows (null: snapshot).
 * Each answers the ids of the rows it wrote.
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
