import type { z } from 'zod';
import type { IssueState, QueueState } from '@tracker/events';

/**
 * The replica's model: the issues service's aggregates as its events and snapshot carry them
 * (the ports that write them: ports.ts).
 */
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
