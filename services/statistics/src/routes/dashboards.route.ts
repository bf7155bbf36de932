import type { Router } from 'express';
import { DashboardInput } from '@tracker/contracts';
import { answerOnce, parseBody, parseId } from '@tracker/kit';
import { contextOf } from '@tracker/authz';
import { createDashboard } from '../domain/create-dashboard.use-case';
import { dashboardStatistics } from '../domain/dashboard-statistics.use-case';
import type { StatisticsDeps } from '../domain/deps';
import { listDashboards } from '../domain/list-dashboards.use-case';
import { replaceDashboard } from '../domain/replace-dashboard.use-case';
import { dashboardJson, dashboardStatisticsJson } from './json';

export function dashboardsRoutes(router: Router, deps: StatisticsDeps): void {
  router.get('/api/v1/dashboards', async (_req, res) => {
    res.json((await listDashboards(deps, contextOf(res))).map(dashboardJson));
  });

  router.post('/api/v1/dashboards', async (req, res) => {
    const input = parseBody(DashboardInput, req.body);
    await answerOnce(req, res, deps.store.idempotentRequests, { status: 201, render: dashboardJson }, (once) => createDashboard(deps, contextOf(res), input, once));
  });

  router.put('/api/v1/dashboards/:dashboard_id', async (req, res) => {
    const id = parseId('dashboard_id', req.params.dashboard_id);
    const input = parseBody(DashboardInput, req.body);
    res.json(dashboardJson(await replaceDashboard(deps, contextOf(res), id, input)));
  });

  router.get('/api/v1/dashboards/:dashboard_id/statistics', async (req, res) => {
    const id = parseId('dashboard_id', req.params.dashboard_id);
    res.json(dashboardStatisticsJson(await dashboardStatistics(deps, contextOf(res), id)));
  });
}
