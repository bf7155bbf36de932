import { z } from 'zod';
import { Priority } from './issues';
import { Category } from './queues';

/**
 * The issues service's snapshot for rebuilding the statistics replica, both sides of it:
 * the issues service answers these pages (services/issues/src/routes/internal-snapshot.route.ts)
 * and the statistics service checks every page it reads against them
 * (services/statistics/src/data-access/issues-snapshot.client.ts). A queue and an issue
 * travel in the same state as their integration events carry (libs/events re-exports
 * QueueState and IssueState for its event schemas).
 */
const id = z.number().int().positive();
const timestamp = z.iso.datetime({ offset: true });

export const QueueState = z.object({
  id,
  workspace_id: id,
  key: z.string(),
  name: z.string(),
  description: z.string(),
  statuses: z.array(z.object({ id, name: z.string(), category: Category, position: z.number().int() })),
  created_at: timestamp,
  updated_at: timestamp,
});

/** What the statistics replica needs of an issue (the text too: statistics filter by free text). */
export const IssueState = z.object({
  id,
  workspace_id: id,
  queue_id: id,
  key: z.string(),
  title: z.string(),
  description: z.string().optional(),
  status_id: id,
  status_category: Category,
  assignee_id: id.nullable(),
  parent_id: id.nullable(),
  priority: Priority,
  type: z.string(),
  labels: z.array(z.string()),
  due_date: z.iso.date().nullable(),
  estimate_minutes: z.number().int().nonnegative(),
  spent_minutes: z.number().int().nonnegative(),
  version: z.number().int().positive(),
  /**
   * What the API answers of an issue beyond the replica's needs (the notifications
   * service's public events carry the issue as the API answers it). Optional: events
   * written before they existed lack them.
   */
  position: z.number().optional(),
  status_name: z.string().optional(),
  created_by: id.optional(),
  created_at: timestamp,
  updated_at: timestamp,
});

/**
 * Snapshot of the issues service for rebuilding the statistics replica (signed service
 * principal only). Pages are ordered by id; a rebuild applies each row only when its
 * revision is newer than the replica's, exactly as events are applied, so it can run
 * while events keep flowing.
 *
 * GET /internal/snapshot/queues?after_id=<id>&limit=<1..1000>
 *   → { queues: [{ revision, queue: QueueState }], next_after_id: number | null }
 * GET /internal/snapshot/issues?after_id=<id>&limit=<1..1000>
 *   → { issues: [{ revision, issue: IssueState }], next_after_id: number | null }
 * GET /internal/snapshot/comments?after_id=<id>&limit=<1..1000>
 *   → { comments: [{ id, issue_id, body }], next_after_id: number | null }
 * (QueueState and IssueState above, the states events carry too.) Issue and comment pages are bounded
 * in bytes too (SNAPSHOT_LIMITS), so a page may hold fewer than `limit` rows while more
 * follow: only `next_after_id: null` ends the walk. Comments are pages of their own (by
 * comment id), not part of their issue's row, so no issue makes a page large.
 */
export const SnapshotPage = z.object({
  after_id: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(500),
});

export const SNAPSHOT_LIMITS = {
  /**
   * A page of issues or comments stops before the UTF-8 bytes of its text (key, title,
   * description, type and labels of an issue; a comment's body), plus `rowOverhead` per
   * row for the other fields, would pass this; a single larger row is a page of its own.
   */
  pageBytes: 1_048_576,
  /** Bytes counted per row for everything but its text (ids, dates, field names). */
  issueRowOverhead: 700,
  commentRowOverhead: 60,
} as const;

/**
 * The answers of the three snapshot routes. Issue rows carry no comments: comments are
 * pages of their own. (An issues service of before that still sends `comments` in its
 * rows; they are ignored, and its missing comments endpoint fails the rebuild, which is
 * retried until issues is upgraded.)
 */
export const SnapshotQueuesPage = z.object({
  queues: z.array(z.object({ revision: id, queue: QueueState })),
  next_after_id: id.nullable(),
});
export const SnapshotIssuesPage = z.object({
  issues: z.array(z.object({ revision: id, issue: IssueState })),
  next_after_id: id.nullable(),
});
export const SnapshotCommentsPage = z.object({
  comments: z.array(z.object({ id, issue_id: id, body: z.string() })),
  next_after_id: id.nullable(),
});
