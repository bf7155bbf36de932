import type { QueueCreate } from '@tracker/contracts';
import type { Once } from '@tracker/kit';
import type { IssuesDeps } from './deps';
import { queueCreated } from './events';
import { issuesErrors } from './issues.errors';
import type { QueueWithRole, RequestContext } from './model';
import { normalizeQueueKey, STANDARD_STATUSES } from './queues.rules';

export function assertWorkspaceAdmin(ctx: RequestContext): void {
  if (ctx.workspaceRole !== 'admin') throw issuesErrors.workspaceAdminOnly();
}

/**
 * A queue with the standard statuses. The access service learns of the queue
 * inside the creating transaction, so a role can be granted on it as soon as this
 * answers; if the access service cannot be told, nothing is created (503).
 */
export async function createQueue(deps: IssuesDeps, ctx: RequestContext, input: QueueCreate, once?: Once<QueueWithRole>): Promise<QueueWithRole> {
  assertWorkspaceAdmin(ctx);
  const key = normalizeQueueKey(input.key);
  return deps.store.transaction(async (tx): Promise<QueueWithRole> => {
    const created = await tx.queues.create({ workspaceId: ctx.workspaceId, key, name: input.name, description: input.description, statuses: STANDARD_STATUSES });
    if (!created) throw issuesErrors.queueKeyTaken(key);
    await tx.outbox.append(queueCreated(ctx, created));
    await deps.directory.registerQueue({ queueId: created.id, workspaceId: ctx.workspaceId, key }, ctx.requestId);
    return { ...created, role: 'admin', roleSource: 'inherited' };
  }, once);
}
