import { queueIdsOf, type DashboardInput } from '@tracker/contracts';
import type { StatisticsDeps } from './deps';
import { builtReplicaAndAccess, requireReadable } from './guards';
import type { DashboardRecord, RequestContext } from './model';

/** Any member may create a dashboard; its filters may name only queues the member can read. */
export async function createDashboard(deps: StatisticsDeps, ctx: RequestContext, input: DashboardInput): Promise<DashboardRecord> {
  const { access } = await builtReplicaAndAccess(deps, ctx);
  const queueIds = queueIdsOf(input.widgets);
  await requireReadable(deps, ctx, access, queueIds, 'widgets.filters.queue_ids');
  return deps.dashboards.create({ workspaceId: ctx.workspaceId, ownerId: ctx.userId, name: input.name, widgets: input.widgets, queueIds });
}
