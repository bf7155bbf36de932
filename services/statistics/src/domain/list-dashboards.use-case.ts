import type { StatisticsDeps } from './deps';
import { builtReplicaAndAccess, readableScope } from './guards';
import type { DashboardRecord, RequestContext } from './model';

/**
 * Every dashboard of the workspace, except, for a member, those whose filters name a queue
 * not granted to them. A workspace admin sees them all (guards: seesDashboard).
 */
export async function listDashboards(deps: StatisticsDeps, ctx: RequestContext): Promise<DashboardRecord[]> {
  const { access } = await builtReplicaAndAccess(deps, ctx);
  return deps.store.dashboards.listVisible(ctx.workspaceId, readableScope(access));
}
