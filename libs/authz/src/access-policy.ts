import { effectiveRole, roleAtLeast, type EffectiveRole, type QueueRole } from '@tracker/contracts';
import { principalOf } from '@tracker/kit';
import type { GrantsSource } from './acl-reader';

/** Who is asking, as the gateway's signed principal says, with the request id for logs. */
export interface RequestContext {
  userId: number;
  workspaceId: number;
  workspaceRole: 'admin' | 'member';
  requestId: string | null;
}

/** The express response of a request (the type principalOf takes; this library has no express of its own). */
type RouteResponse = Parameters<typeof principalOf>[0];

/** The RequestContext of a route under /api/v1: its user principal and request id. */
export function contextOf(res: RouteResponse): RequestContext {
  const principal = principalOf(res);
  return {
    userId: principal.userId,
    workspaceId: principal.workspaceId,
    workspaceRole: principal.workspaceRole,
    requestId: (res.locals.requestId as string | undefined) ?? null,
  };
}

/**
 * The caller's rights for one request. `roleOn` must only be asked about queues
 * already known to belong to the caller's workspace (repositories filter by
 * workspace), so a grant on a foreign queue never counts.
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

export const canWrite = (role: EffectiveRole | null) => roleAtLeast(role?.role ?? null, 'read-write');
export const canAdminister = (role: EffectiveRole | null) => roleAtLeast(role?.role ?? null, 'admin');
