import { queueIdsOf, type DashboardInput } from '@tracker/contracts';
import type { StatisticsDeps } from './deps';
import { builtReplicaAndAccess, requireReadable, seesDashboard } from './guards';
import type { DashboardRecord, RequestContext } from './model';
import { statisticsErrors } from './statistics.errors';

/**
 * Replaces a dashboard's name and widgets. A dashboard the caller cannot see (another
 * workspace, unknown, or naming a queue hidden from the caller) is 404; one the caller
 * sees but does not own is 403; the new filters may name only readable queues (403).
 */
export async function replaceDashboard(deps: StatisticsDeps, ctx: RequestContext, id: number, input: DashboardInput): Promise<DashboardRecord> {
  const { access } = await builtReplicaAndAccess(deps, ctx);
  const dashboard = await deps.store.dashboards.find(ctx.workspaceId, id);
  if (!dashboard || !seesDashboard(access, dashboard)) throw statisticsErrors.dashboardNotFound();
  if (dashboard.ownerId !== ctx.userId) throw statisticsErrors.ownerOnly();
  const queueIds = queueIdsOf(input.widgets);
  await requireReadable(deps, ctx, access, queueIds, 'widgets.filters.queue_ids');
  return deps.store.dashboards.replace(id, { name: input.name, widgets: input.widgets, queueIds }, deps.clock());
}
