import type { QueueRole } from '@tracker/contracts';
import type { UserPrincipal } from '@tracker/kit';
import { accessErrors } from './access.errors';
import { aclCacheKey } from '@tracker/authz';
import { authorizeQueueAdmin } from './authorize-queue-admin';
import type { AccessDeps } from './deps';
import { permissionChangedEvent } from './events';
import type { QueueMember } from './permissions.model';

/**
 * PUT (a role) or DELETE (null) of a user's explicit role on a queue. The cached
 * grants of the user are deleted before this returns: the change holds for the very
 * next request. Revoking leaves a workspace admin's inherited `admin` in place.
 */
export async function setQueuePermission(
  deps: Pick<AccessDeps, 'store' | 'cache'>,
  caller: UserPrincipal,
  input: { queueId: number; userId: number; role: QueueRole | null; requestId?: string },
): Promise<{ queueId: number; member: QueueMember }> {
  const queue = await authorizeQueueAdmin(deps, caller, input.queueId);
  const target = await deps.store.users.findInWorkspace(caller.workspaceId, input.userId);
  if (!target) throw accessErrors.userNotFound();

  const staleKeys = await deps.store.transaction(async (tx) => {
    // FOR UPDATE waits for any ACL lookup holding the user row FOR SHARE while it caches
    // (get-user-acl), so the cache key deleted after commit is never outlived by a stale copy.
    await tx.users.lockForUpdate(target.id);
    const current = await tx.permissions.grant(queue.id, target.id);
    const fromRole = current?.role ?? null;
    if (fromRole === input.role) return [];
    const revision = await tx.permissions.saveGrant(queue.id, target.id, input.role);
    await tx.permissions.recordChange({ queueId: queue.id, userId: target.id, actorId: caller.userId, fromRole, toRole: input.role });
    await tx.outbox.append(
      permissionChangedEvent(
        {
          workspaceId: caller.workspaceId,
          queueId: queue.id,
          userId: target.id,
          role: input.role,
          previousRole: fromRole,
          member: { name: target.name, active: target.active, workspaceRole: target.role },
          revision,
        },
        caller.userId,
        input.requestId,
      ),
    );
    // Recorded in the same transaction: a failed cache delete after commit is retried, not forgotten.
    const keys = [aclCacheKey(target.id)];
    await tx.cacheDebts.record(keys);
    return keys;
  });
  await deps.cache.invalidate(staleKeys);
  return {
    queueId: queue.id,
    member: { userId: target.id, name: target.name, active: target.active, workspaceRole: target.role, explicitRole: input.role },
  };
}
