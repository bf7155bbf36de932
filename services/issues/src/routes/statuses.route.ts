import type { Router } from 'express';
import { contextOf } from '@tracker/authz';
import type { IssuesDeps } from '../domain/deps';
import { listStatuses } from '../domain/list-statuses.use-case';
import { statusJson } from './json';

export function statusesRoutes(router: Router, deps: IssuesDeps): void {
  router.get('/api/v1/statuses', async (_req, res) => {
    res.json((await listStatuses(deps, contextOf(res))).map(statusJson));
  });
}
