import { accessOf, type CallerAccess } from '@tracker/authz';
import type { StatisticsDeps } from './deps';
import type { ReplicaStatus, RequestContext } from './model';
import { statisticsErrors } from './statistics.errors';

/**
 * The replica's status and the caller's rights, looked up together. Until the replica
 * is built every statistics and dashboard answer is 503 (decisions.md).
 */
export async function builtReplicaAndAccess(deps: StatisticsDeps, ctx: RequestContext): Promise<{ status: ReplicaStatus; access: CallerAccess }> {
  const [status, access] = await Promise.all([deps.replica.status(), accessOf(deps.grants, ctx)]);
  if (!status.built) throw statisticsErrors.unavailable('the read replica is being built');
  return { status, access };
}

/**
 * Whether every queue id is readable by the caller: for a workspace admin, a queue of
 * the workspace (as far as the replica knows); for a member, an explicitly granted one.
 */
export async function allReadable(deps: StatisticsDeps, ctx: RequestContext, access: CallerAccess, ids: number[]): Promise<boolean> {
  const named = [...new Set(ids)];
  if (named.length === 0) return true;
  if (!access.isWorkspaceAdmin) return named.every((id) => access.canRead(id));
  const known = new Set(await deps.replica.queueIdsInWorkspace(ctx.workspaceId, named));
  return named.every((id) => known.has(id));
}

/** 403 unless every named queue is readable; unknown and unreadable alike (no existence leak). */
export async function requireReadable(deps: StatisticsDeps, ctx: RequestContext, access: CallerAccess, ids: number[], path: string): Promise<void> {
  if (!(await allReadable(deps, ctx, access, ids))) throw statisticsErrors.queueNotAccessible(path);
}

/** The queues a caller may count: null means every queue of the workspace (workspace admins). */
export const readableScope = (access: CallerAccess): number[] | null => (access.isWorkspaceAdmin ? null : access.grantedQueueIds());
