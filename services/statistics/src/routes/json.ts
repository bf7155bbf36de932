import type { Dashboard as DashboardJson, DashboardStatistics as DashboardStatisticsJson, StatisticsResult, Widget } from '@tracker/contracts';
import type { Statistics } from '../domain/compute-statistics.use-case';
import type { DashboardStatistics } from '../domain/dashboard-statistics.use-case';
import type { DashboardRecord } from '../domain/model';

/** The JSON shapes of libs/contracts (documented in services/statistics/README.md). */

export const statisticsJson = ({ figures, truncated, asOf }: Statistics): StatisticsResult => {
  const { overall } = figures;
  return {
    total: figures.matched,
    truncated,
    as_of: asOf ? asOf.toISOString() : null,
    progress: { open: overall.open, progress: overall.progress, done: overall.done, total: overall.total, done_percent: overall.donePercent },
    time: { estimate_minutes: overall.estimateMinutes, spent_minutes: overall.spentMinutes },
    queues: figures.queues.map((q) => ({
      queue_id: q.queueId,
      key: q.key,
      open: q.open,
      progress: q.progress,
      done: q.done,
      total: q.total,
      estimate_minutes: q.estimateMinutes,
      spent_minutes: q.spentMinutes,
    })),
    assignees: figures.assignees.map((a) => ({
      assignee_id: a.assigneeId,
      open: a.open,
      progress: a.progress,
      done: a.done,
      total: a.total,
      estimate_minutes: a.estimateMinutes,
      spent_minutes: a.spentMinutes,
    })),
  };
};

export const dashboardJson = (d: DashboardRecord): DashboardJson => ({
  id: d.id,
  workspace_id: d.workspaceId,
  owner_id: d.ownerId,
  name: d.name,
  widgets: d.widgets as Widget[],
  created_at: d.createdAt.toISOString(),
  updated_at: d.updatedAt.toISOString(),
});

export const dashboardStatisticsJson = (d: DashboardStatistics): DashboardStatisticsJson => ({ dashboard_id: d.dashboardId, widgets: d.widgets.map(statisticsJson) });
