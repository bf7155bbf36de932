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
