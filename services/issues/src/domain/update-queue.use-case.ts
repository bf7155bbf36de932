import type { QueueSettings } from '@tracker/contracts';
import { accessOf, canAdminister } from '@tracker/authz';
import type { IssuesDeps } from './deps';
import { queueUpdated } from './events';
import { issuesErrors } from './issues.errors';
import type { QueueWithRole, RequestContext } from './model';
import { queueSettingsChanges } from './queues.rules';

/** Name and description of a queue; queue admins and workspace admins only. */
export async function updateQueue(deps: IssuesDeps, ctx: RequestContext, queueId: number, settings: QueueSettings): Promise<QueueWithRole> {
  const [access, found] = await Promise.all([accessOf(deps.grants, ctx), deps.store.queues.findInWorkspace(ctx.workspaceId, queueId)]);
  const role = found ? access.roleOn(found.id) : null;
  if (!found || !role) throw issuesErrors.queueNotFound();
  if (!canAdminister(role)) throw issuesErrors.queueAdminOnly();

  const queue = await deps.store.transaction(async (tx) => {
    const current = (await tx.queues.lock(ctx.workspaceId, queueId))!;
    const changes = queueSettingsChanges(current, settings);
    if (Object.keys(changes).length === 0) return current;
    const updated = await tx.queues.update(queueId, changes);
    const previous = Object.fromEntries(Object.keys(changes).map((field) => [field, current[field as keyof typeof changes]]));
    await tx.outbox.append(queueUpdated(ctx, updated, previous));
    return updated;
  });
  return { ...queue, role: role.role, roleSource: role.role_source };
}
