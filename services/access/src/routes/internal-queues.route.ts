import type { Router } from 'express';
import { QueuesLookup, RegisterQueue, UsersLookup, type QueuesLookupResult, type UserAcl, type UsersLookupResult } from '@tracker/contracts';
import { parseBody, parseId } from '@tracker/kit';
import type { AccessDeps } from '../domain/deps';
import { getUserAcl } from '../domain/get-user-acl.use-case';
import { lookupQueues } from '../domain/lookup-queues.use-case';
import { lookupUsers } from '../domain/lookup-users.use-case';
import { registerQueue } from '../domain/register-queue.use-case';

/** Service-to-service API (signed service principal only; see @tracker/contracts internal.ts). */
export function internalQueuesRoutes(router: Router, deps: AccessDeps): void {
  router.post('/internal/queues', async (req, res) => {
    const body = parseBody(RegisterQueue, req.body);
    await registerQueue(deps, { id: body.queue_id, workspaceId: body.workspace_id, key: body.key.toUpperCase() });
    res.json({ queue_id: body.queue_id });
  });

  router.post('/internal/queues/lookup', async (req, res) => {
    const body = parseBody(QueuesLookup, req.body);
    const result: QueuesLookupResult = { queue_ids: await lookupQueues(deps, { workspaceId: body.workspace_id, queueIds: body.queue_ids }) };
    res.json(result);
  });

  router.get('/internal/acl/users/:user_id', async (req, res) => {
    const acl: UserAcl = await getUserAcl(deps, parseId('user_id', req.params.user_id));
    res.json(acl);
  });

  router.post('/internal/users/lookup', async (req, res) => {
    const body = parseBody(UsersLookup, req.body);
    const users = await lookupUsers(deps, { workspaceId: body.workspace_id, userIds: body.user_ids });
    const result: UsersLookupResult = { users };
    res.json(result);
  });
}
