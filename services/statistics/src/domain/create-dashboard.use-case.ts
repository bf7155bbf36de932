import { DASHBOARD_LIMITS, queueIdsOf, type DashboardInput } from '@tracker/contracts';
import type { Once } from '@tracker/kit';
import type { StatisticsDeps } from './deps';
import { builtReplicaAndAccess, requireReadable } from './guards';
import type { DashboardRecord, RequestContext } from './model';
import { statisticsErrors } from './statistics.errors';

/**
 * Any member may create a dashboard; its filters may name only queues the member can
 * read. A workspace holds at most DASHBOARD_LIMITS.perWorkspace dashboards (422 beyond),
 * which with the limits of one dashboard keeps every member's GET /dashboards small.
 */
export async function createDashboard(deps: StatisticsDeps, ctx: RequestContext, input: DashboardInput, once?: Once<DashboardRecord>): Promise<DashboardRecord> {
  const { access } = await builtReplicaAndAccess(deps, ctx);
  const queueIds = queueIdsOf(input.widgets);
  await requireReadable(deps, ctx, access, queueIds, 'widgets.filters.queue_ids');
  const max = DASHBOARD_LIMITS.perWorkspace;
  // The key (if any) is claimed first, so a concurrent repeat replays rather than counting;
  // creates of one workspace then wait for each other, so the count sees every one committed.
  // A refusal throws inside the transaction, which rolls the key's claim back with it.
  return deps.store.transaction(async (tx) => {
    await tx.dashboards.lockWorkspace(ctx.workspaceId);
    if ((await tx.dashboards.countInWorkspace(ctx.workspaceId)) >= max) throw statisticsErrors.tooManyDashboards(max);
    return tx.dashboards.insert({ workspaceId: ctx.workspaceId, ownerId: ctx.userId, name: input.name, widgets: input.widgets, queueIds });
  }, once);
}
