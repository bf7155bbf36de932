import { effectiveRole } from '@tracker/contracts';
import type { UserPrincipal } from '@tracker/kit';
import { authorizeQueueAdmin } from './authorize-queue-admin';
import type { AccessDeps } from './deps';

/** GET /queues/{id}/permissions: members with any role on the queue, and the history of changes. */
export async function listQueuePermissions(deps: Pick<AccessDeps, 'store'>, caller: UserPrincipal, queueId: number) {
  const queue = await authorizeQueueAdmin(deps, caller, queueId);
  const [members, history] = await Promise.all([
    deps.store.permissions.members(caller.workspaceId, queue.id),
    deps.store.permissions.history(queue.id),
  ]);
  return { queue, members: members.filter((m) => effectiveRole(m.workspaceRole, m.explicitRole) !== null), history };
}
