import { accessOf } from '@tracker/authz';
import type { IssuesDeps } from './deps';
import { readableQueueIds } from './guards';
import type { RequestContext, StatusRecord } from './model';

/** Statuses of every queue the caller can read. */
export async function listStatuses(deps: IssuesDeps, ctx: RequestContext): Promise<StatusRecord[]> {
  const access = await accessOf(deps.grants, ctx);
  const readable = await readableQueueIds(deps, ctx, access);
  if (readable?.length === 0) return [];
  return deps.store.queues.statuses(ctx.workspaceId, readable ?? undefined);
}
