import type { Router } from 'express';
import { Filters } from '@tracker/contracts';
import { idempotencyKeyOf, parseBody } from '@tracker/kit';
import { contextOf } from '@tracker/authz';
import { computeStatistics } from '../domain/compute-statistics.use-case';
import type { StatisticsDeps } from '../domain/deps';
import { statisticsJson } from './json';

export function statisticsRoutes(router: Router, deps: StatisticsDeps): void {
  router.post('/api/v1/statistics', async (req, res) => {
    const filters = parseBody(Filters, req.body);
    // Statistics write nothing, so repeating is safe: a key is checked, then has no effect.
    idempotencyKeyOf(req);
    res.json(statisticsJson(await computeStatistics(deps, contextOf(res), filters)));
  });
}
