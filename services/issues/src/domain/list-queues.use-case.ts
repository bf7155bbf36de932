import { accessOf } from '@tracker/authz';
import type { IssuesDeps } from './deps';
import type { QueueWithRole, RequestContext } from './model';

/** The queues of the caller's workspace that the caller can read, with the effective role on each. */
export async function listQueues(deps: IssuesDeps, ctx: RequestContext): Promise<QueueWithRole[]> {
  const access = await accessOf(deps.grants, ctx);
  const queues = await deps.store.queues.listInWorkspace(ctx.workspaceId, access.isWorkspaceAdmin ? undefined : access.grantedQueueIds());
  return queues.flatMap((queue) => {
    const role = access.roleOn(queue.id);
    return role ? [{ ...queue, role: role.role, roleSource: role.role_source }] : [];
  });
}
