import { z } from 'zod';
import { QueueRole } from './roles';

/**
 * Service-to-service API of the access service (under /internal, signed service
 * principal only; never routed by the gateway).
 */

/** POST /internal/queues — the issues service registers a queue before its creating transaction commits. Idempotent. */
export const RegisterQueue = z.strictObject({
  queue_id: z.number().int().positive(),
  workspace_id: z.number().int().positive(),
  key: z.string().min(2).max(12),
});

/**
 * GET /internal/acl/users/{user_id} — the explicit queue grants of a user. 404 for an
 * unknown user. The same JSON is cached in Redis under `aclCacheKey(user_id)`; the
 * access service deletes that key before it answers any change of the user's grants.
 */
export const UserAcl = z.object({
  user_id: z.number().int().positive(),
  workspace_id: z.number().int().positive(),
  grants: z.array(z.object({ queue_id: z.number().int().positive(), role: QueueRole })),
});
export type UserAcl = z.infer<typeof UserAcl>;

/** POST /internal/users/lookup — which of these ids are users of the workspace, and whether active. */
export const UsersLookup = z.strictObject({
  workspace_id: z.number().int().positive(),
  user_ids: z.array(z.number().int().positive()).max(1000),
});
export const UsersLookupResult = z.object({ users: z.array(z.object({ id: z.number().int().positive(), active: z.boolean() })) });
export type UsersLookupResult = z.infer<typeof UsersLookupResult>;

/** Ids per POST /internal/queues/lookup; callers with more ask in several calls. */
export const QUEUES_LOOKUP_MAX = 1000;

/**
 * POST /internal/queues/lookup — which of these ids are queues of the workspace. Current
 * at once: every queue is registered (POST /internal/queues) before it exists.
 */
export const QueuesLookup = z.strictObject({
  workspace_id: z.number().int().positive(),
  queue_ids: z.array(z.number().int().positive()).max(QUEUES_LOOKUP_MAX),
});
/** The ids asked for that are queues of the workspace, each once, ascending. */
export const QueuesLookupResult = z.object({ queue_ids: z.array(z.number().int().positive()) });
export type QueuesLookupResult = z.infer<typeof QueuesLookupResult>;

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
 * (QueueState and IssueState as in @tracker/events.) Issue and comment pages are bounded
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
