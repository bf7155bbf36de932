import type { Widget } from '@tracker/contracts';
import { statisticsCriteria, statisticsOf, type Statistics } from './compute-statistics.use-case';
import type { StatisticsDeps } from './deps';
import { builtReplicaAndAccess, seesDashboard } from './guards';
import type { RequestContext } from './model';
import { statisticsErrors } from './statistics.errors';

/**
 * How many widgets' figures are computed at once: the dashboard's statements run side by
 * side on a few of the pool's connections, leaving the rest to other requests.
 */
export const WIDGETS_IN_FLIGHT = 4;

export interface DashboardStatistics {
  dashboardId: number;
  /** POST /statistics's answer for each widget's filters, in the widgets' order. */
  widgets: Statistics[];
}

/**
 * The statistics of every widget of a dashboard, for the caller: one authentication, one
 * look at the replica's status and the caller's rights, then each widget's figures. A
 * dashboard the caller cannot see (another workspace, unknown, or naming a queue hidden
 * from them) is 404, as for PUT. Every queue a visible dashboard names is readable by the
 * caller (seesDashboard; a workspace admin's were checked to be the workspace's when it was
 * saved, and a queue never leaves its workspace), so no widget can answer 403.
 */
export async function dashboardStatistics(deps: StatisticsDeps, ctx: RequestContext, id: number): Promise<DashboardStatistics> {
  const [{ status, access }, dashboard] = await Promise.all([builtReplicaAndAccess(deps, ctx), deps.store.dashboards.find(ctx.workspaceId, id)]);
  if (!dashboard || !seesDashboard(access, dashboard)) throw statisticsErrors.dashboardNotFound();
  const now = deps.clock();
  const widgets = await mapInTurns(dashboard.widgets as Widget[], WIDGETS_IN_FLIGHT, async ({ filters }) =>
    statisticsOf(await deps.store.replicaReads.figures(statisticsCriteria(filters, ctx, access, now)), status.asOf),
  );
  return { dashboardId: dashboard.id, widgets };
}

/** `work` on every item, at most `inFlight` at a time; the results in the items' order. */
async function mapInTurns<T, R>(items: readonly T[], inFlight: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      try {
        results[index] = await work(items[index]!);
      } catch (error) {
        next = items.length; // the answer is this error: no more work for it
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, items.length) }, worker));
  return results;
}
