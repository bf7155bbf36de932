import { QUEUES_LOOKUP_MAX, QueuesLookupResult, roleAtLeast, UserAcl, UsersLookupResult, type QueueRole } from '@tracker/contracts';
import { UpstreamUnavailableError, type InternalClient } from '@tracker/kit';

/**
 * The access service's internal API (libs/contracts/src/internal.ts). Anything but
 * the documented answers is treated as the service being unavailable (503), never
 * as "no rights" or "no user", so a broken dependency cannot widen or narrow access.
 */
export function accessClient(client: InternalClient) {
  const unexpected = (what: string, status: number) => new UpstreamUnavailableError(`access answered ${status} to ${what}`);
  return {
    /** Idempotent; called inside the queue-creating transaction before it commits. */
    async registerQueue(queue: { queueId: number; workspaceId: number; key: string }, requestId: string | null): Promise<void> {
      const res = await client.call('POST', '/internal/queues', {
        body: { queue_id: queue.queueId, workspace_id: queue.workspaceId, key: queue.key },
        requestId: requestId ?? undefined,
      });
      if (res.status !== 200 && res.status !== 201) throw unexpected('POST /internal/queues', res.status);
    },

    /** A user's explicit grants, or null for a user the access service does not know. */
    async userAcl(userId: number, requestId: string | null): Promise<UserAcl | null> {
      const res = await client.call('GET', `/internal/acl/users/${userId}`, { requestId: requestId ?? undefined });
      if (res.status === 404) return null;
      const acl = res.status === 200 ? UserAcl.safeParse(res.body) : null;
      if (!acl?.success) throw unexpected('GET /internal/acl/users', res.status);
      return acl.data;
    },

    /** Which of these ids are users of the workspace, and whether they are active. */
    async lookupUsers(workspaceId: number, userIds: number[], requestId: string | null): Promise<UsersLookupResult['users']> {
      const res = await client.call('POST', '/internal/users/lookup', {
        body: { workspace_id: workspaceId, user_ids: userIds },
        requestId: requestId ?? undefined,
      });
      const result = res.status === 200 ? UsersLookupResult.safeParse(res.body) : null;
      if (!result?.success) throw unexpected('POST /internal/users/lookup', res.status);
      return result.data.users;
    },

    /**
     * Which of these ids are queues of the workspace. Unlike a replica fed by events it is
     * current at once: the issues service registers each queue before the queue exists.
     */
    async lookupQueues(workspaceId: number, queueIds: number[], requestId: string | null): Promise<number[]> {
      const found: number[] = [];
      for (let at = 0; at < queueIds.length; at += QUEUES_LOOKUP_MAX) {
        const res = await client.call('POST', '/internal/queues/lookup', {
          body: { workspace_id: workspaceId, queue_ids: queueIds.slice(at, at + QUEUES_LOOKUP_MAX) },
          requestId: requestId ?? undefined,
        });
        const result = res.status === 200 ? QueuesLookupResult.safeParse(res.body) : null;
        if (!result?.success) throw unexpected('POST /internal/queues/lookup', res.status);
        found.push(...result.data.queue_ids);
      }
      return found;
    },
  };
}

export type AccessClient = ReturnType<typeof accessClient>;

/** Grants by queue id, the highest role winning should a queue appear twice. */
export function grantsOf(acl: UserAcl | null, workspaceId: number): Map<number, QueueRole> {
  const grants = new Map<number, QueueRole>();
  if (!acl || acl.workspace_id !== workspaceId) return grants;
  for (const { queue_id, role } of acl.grants) {
    const held = grants.get(queue_id);
    if (!roleAtLeast(held ?? null, role)) grants.set(queue_id, role);
  }
  return grants;
}
