import { accessOf, type CallerAccess } from '@tracker/authz';
import type { StatisticsDeps } from './deps';
import type { DashboardRecord, ReplicaStatus, RequestContext } from './model';
import { statisticsErrors } from './statistics.errors';

/**
 * The replica's status and the caller's rights, looked up together. Until the replica
 * is built every statistics and dashboard answer is 503 (README: Rebuilding the replica).
 */
export async function builtReplicaAndAccess(deps: StatisticsDeps, ctx: RequestContext): Promise<{ status: ReplicaStatus; access: CallerAccess }> {
  const [status, access] = await Promise.all([deps.store.replicaReads.status(), accessOf(deps.grants, ctx)]);
  if (!status.built) throw statisticsErrors.unavailable('the read replica is being built');
  return { status, access };
}

/**
 * Whether every queue id is readable by the caller: for a member, an explicitly granted
 * one (the access service's ACL); for a workspace admin, a queue of the workspace. The
 * replica's word that a queue is one is final (a queue never changes workspace and is
 * never deleted), but the replica hears of a new queue only when its event arrives, so the
 * ids it does not hold are asked of the access service, which knows every queue at once.
 */
export async function allReadable(deps: StatisticsDeps, ctx: RequestContext, access: CallerAccess, ids: number[]): Promise<boolean> {
  const named = [...new Set(ids)];
  if (named.length === 0) return true;
  if (!access.isWorkspaceAdmin) return named.every((id) => access.canRead(id));
  const replicated = new Set(await deps.store.replicaReads.queueIdsInWorkspace(ctx.workspaceId, named));
  const unseen = named.filter((id) => !replicated.has(id));
  if (unseen.length === 0) return true;
  const registered = new Set(await deps.directory.lookupQueues(ctx.workspaceId, unseen, ctx.requestId));
  return unseen.every((id) => registered.has(id));
}

/** 403 unless every named queue is readable; unknown and unreadable alike (no existence leak). */
export async function requireReadable(deps: StatisticsDeps, ctx: RequestContext, access: CallerAccess, ids: number[], path: string): Promise<void> {
  if (!(await allReadable(deps, ctx, access, ids))) throw statisticsErrors.queueNotAccessible(path);
}

/**
 * Whether the caller sees a saved dashboard: a workspace admin sees every one of the
 * workspace (each queue it names was checked to be a workspace queue when it was saved),
 * a member those naming only granted queues. GET /dashboards decides alike (listVisible).
 */
export const seesDashboard = (access: CallerAccess, dashboard: DashboardRecord): boolean =>
  access.isWorkspaceAdmin || dashboard.queueIds.every((id) => access.canRead(id));

/** The queues a caller may count: null means every queue of the workspace (workspace admins). */
export const readableScope = (access: CallerAccess): number[] | null => (access.isWorkspaceAdmin ? null : access.grantedQueueIds());
