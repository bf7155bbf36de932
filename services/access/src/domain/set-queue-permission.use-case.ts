import type { QueueRole } from '@tracker/contracts';
import { notFound, type UserPrincipal } from '@tracker/kit';
import { authorizeQueueAdmin } from './authorize-queue-admin';
import type { AccessDeps } from './deps';
import type { QueueMember } from './permissions.model';

/**
 * PUT (a role) or DELETE (null) of a user's explicit role on a queue. The cached
 * grants of the user are deleted before this returns: the change holds for the very
 * next request. Revoking leaves a workspace admin's inherited `admin` in place.
 */
export async function setQueuePermission(
  deps: Pick<AccessDeps, 'permissions' | 'users' | 'cache'>,
  caller: UserPrincipal,
  input: { queueId: number; userId: number; role: QueueRole | null; requestId?: string },
): Promise<{ queueId: number; member: QueueMember }> {
  const queue = await authorizeQueueAdmin(deps, caller, input.queueId);
  const target = await deps.users.findInWorkspace(caller.workspaceId, input.userId);
  if (!target) throw notFound('The user');
  const changed = await deps.permissions.setRole({
    workspaceId: caller.workspaceId,
    queueId: queue.id,
    userId: target.id,
    actorId: caller.userId,
    role: input.role,
    requestId: input.requestId,
  });
  if (changed) await deps.cache.invalidate(changed.staleKeys);
  return {
    queueId: queue.id,
    member: { userId: target.id, name: target.name, active: target.active, workspaceRole: target.role, explicitRole: input.role },
  };
}
