import type { GrantsSource } from '@tracker/authz';
import { effectiveRole, type EffectiveRole, type QueueRole } from '@tracker/contracts';
import type { RequestContext } from './model';

/**
 * Port: a user's explicit queue grants, read fresh for every request (@tracker/authz
 * aclReader: Redis while its freshness key exists, else the access service). Never
 * cached in this process, so a revoke applies to the very next request.
 */
export type { GrantsSource };

/**
 * The caller's rights for one request. `roleOn` must only be asked about queues
 * already known to belong to the caller's workspace.
 */
export interface CallerAccess {
  readonly isWorkspaceAdmin: boolean;
  roleOn(queueId: number): EffectiveRole | null;
  canRead(queueId: number): boolean;
  /** Queue ids with an explicit grant; workspace admins read every queue of the workspace instead. */
  grantedQueueIds(): number[];
}

export function callerAccess(workspaceRole: 'admin' | 'member', grants: ReadonlyMap<number, QueueRole>): CallerAccess {
  const roleOn = (queueId: number) => effectiveRole(workspaceRole, grants.get(queueId) ?? null);
  return {
    isWorkspaceAdmin: workspaceRole === 'admin',
    roleOn,
    canRead: (queueId) => roleOn(queueId) !== null,
    grantedQueueIds: () => [...grants.keys()],
  };
}

const NO_GRANTS: ReadonlyMap<number, QueueRole> = new Map();

/** Workspace admins inherit `admin` everywhere: their grants are not even looked up. */
export async function accessOf(source: GrantsSource, ctx: RequestContext): Promise<CallerAccess> {
  const grants = ctx.workspaceRole === 'admin' ? NO_GRANTS : await source.explicitGrants(ctx.userId, ctx.workspaceId, ctx.requestId);
  return callerAccess(ctx.workspaceRole, grants);
}
