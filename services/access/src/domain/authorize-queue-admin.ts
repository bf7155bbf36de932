import { effectiveRole } from '@tracker/contracts';
import type { UserPrincipal } from '@tracker/kit';
import { accessErrors } from './access.errors';
import type { AccessDeps } from './deps';
import type { QueueRef } from './permissions.model';

/**
 * Permission management needs `admin` of the queue (explicit, or inherited as a
 * workspace admin). A queue the caller cannot see at all is 404, as if it did not
 * exist; a queue they can see with a lower role is 403.
 */
export async function authorizeQueueAdmin(deps: Pick<AccessDeps, 'store'>, caller: UserPrincipal, queueId: number): Promise<QueueRef> {
  const queue = await deps.store.queues.findInWorkspace(caller.workspaceId, queueId);
  if (!queue) throw accessErrors.queueNotFound();
  const explicit = caller.workspaceRole === 'admin' ? null : await deps.store.permissions.explicitRole(queueId, caller.userId);
  const effective = effectiveRole(caller.workspaceRole, explicit);
  if (!effective) throw accessErrors.queueNotFound();
  if (effective.role !== 'admin') throw accessErrors.queueAdminOnly();
  return queue;
}
