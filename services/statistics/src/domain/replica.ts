import type { z } from 'zod';
import type { IssueState, QueueState } from '@tracker/events';

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
 * `eventAt` is the occurred_at of the event that carries the rows (null: snapshot).
 */
export interface ReplicaWriter {
  applyQueues(rows: QueueRow[], eventAt: Date | null): Promise<number>;
  applyIssues(rows: IssueRow[], eventAt: Date | null): Promise<number>;
  /** Comments never change: inserted once by id (a missing text is filled in later). */
  addComments(rows: CommentRow[], eventAt: Date | null): Promise<number>;
}

export interface ReplicaStore {
  /** Runs `work` in one transaction. */
  transaction<T>(work: (writer: ReplicaWriter) => Promise<T>): Promise<T>;
  /** Marks the replica not built and deletes every replicated row (dashboards stay). */
  reset(): Promise<void>;
  isBuilt(): Promise<boolean>;
  /** Marks the replica built; `snapshotAt` (when the rebuild began) becomes the floor of as_of. */
  markBuilt(snapshotAt: Date): Promise<void>;
}
