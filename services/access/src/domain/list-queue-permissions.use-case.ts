import { effectiveRole } from '@tracker/contracts';
import type { UserPrincipal } from '@tracker/kit';
import { authorizeQueueAdmin } from './authorize-queue-admin';
import type { AccessDeps } from './deps';
import type { PermissionHistoryPage } from './permissions.model';

/**
 * GET /queues/{id}/permissions: members with any role on the queue, and the newest changes
 * with how many there are (ISSUE_READ_LIMITS: the read stays bounded however many changes
 * a queue admin makes).
 */
export async function listQueuePermissions(deps: Pick<AccessDeps, 'store'>, caller: UserPrincipal, queueId: number) {
  const queue = await authorizeQueueAdmin(deps, caller, queueId);
  const [members, history] = await Promise.all([
    deps.store.permissions.members(caller.workspaceId, queue.id),
    deps.store.permissions.newestHistory(queue.id),
  ]);
  return { queue, members: members.filter((m) => effectiveRole(m.workspaceRole, m.explicitRole) !== null), history };
}

/** GET /queues/{id}/permissions/history: one page of the changes, oldest first, under the same rights as the read. */
export async function listQueuePermissionHistory(
  deps: Pick<AccessDeps, 'store'>,
  caller: UserPrincipal,
  queueId: number,
  page: { after_id: number; limit: number },
): Promise<PermissionHistoryPage> {
  const queue = await authorizeQueueAdmin(deps, caller, queueId);
  return deps.store.permissions.historyPage(queue.id, page.after_id, page.limit);
}
