import type { Router } from 'express';
import { ListPage, QueuePermissionInput } from '@tracker/contracts';
import { parseBody, parseId, parseQuery, principalOf } from '@tracker/kit';
import type { AccessDeps } from '../domain/deps';
import { listQueuePermissionHistory, listQueuePermissions } from '../domain/list-queue-permissions.use-case';
import { setQueuePermission } from '../domain/set-queue-permission.use-case';
import { permissionChangePageJson, queuePermissionJson, queuePermissionsJson } from './json';

export function permissionsRoutes(router: Router, deps: AccessDeps): void {
  router.get('/api/v1/queues/:queue_id/permissions', async (req, res) => {
    const caller = principalOf(res);
    const queueId = parseId('queue_id', req.params.queue_id);
    res.json(queuePermissionsJson(await listQueuePermissions(deps, caller, queueId)));
  });

  // The rest of what the read embeds the newest of, paged as an issue's lists are.
  router.get('/api/v1/queues/:queue_id/permissions/history', async (req, res) => {
    const caller = principalOf(res);
    const queueId = parseId('queue_id', req.params.queue_id);
    const page = parseQuery(ListPage, req.query as Record<string, unknown>);
    res.json(permissionChangePageJson(await listQueuePermissionHistory(deps, caller, queueId, page)));
  });

  router.put('/api/v1/queues/:queue_id/permissions/:user_id', async (req, res) => {
    const caller = principalOf(res);
    const queueId = parseId('queue_id', req.params.queue_id);
    const userId = parseId('user_id', req.params.user_id);
    const { role } = parseBody(QueuePermissionInput, req.body);
    const result = await setQueuePermission(deps, caller, { queueId, userId, role, requestId: res.locals.requestId });
    res.json(queuePermissionJson(result));
  });

  router.delete('/api/v1/queues/:queue_id/permissions/:user_id', async (req, res) => {
    const caller = principalOf(res);
    const queueId = parseId('queue_id', req.params.queue_id);
    const userId = parseId('user_id', req.params.user_id);
    const result = await setQueuePermission(deps, caller, { queueId, userId, role: null, requestId: res.locals.requestId });
    res.json(queuePermissionJson(result));
  });
}
