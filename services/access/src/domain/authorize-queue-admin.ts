import { effectiveRole } from '@tracker/contracts';
import { forbidden, notFound, type UserPrincipal } from '@tracker/kit';
import type { AccessDeps } from './deps';
import type { QueueRef } from './permissions.model';

/**
 * Permission management needs `admin` of the queue (explicit, or inherited as a
 * workspace admin). A queue the caller cannot see at all is 404, as if it did not
 * exist; a queue they can see with a lower role is 403.
 */
export async function authorizeQueueAdmin(deps: Pick<AccessDeps, 'store'>, caller: UserPrincipal, queueId: number): Promise<QueueRef> {
  const queue = await deps.store.queues.findInWorkspace(caller.workspaceId, queueId);
  if (!queue) throw notFound('The queue');
  const explicit = caller.workspaceRole === 'admin' ? null : await deps.store.permissions.explicitRole(queueId, caller.userId);
  const effective = effectiveRole(caller.workspaceRole, explicit);
  if (!effective) throw notFound('The queue');
  if (effective.role !== 'admin') throw forbidden('Only an admin of the queue or of the workspace may manage its permissions.');
  return queue;
}
