import type { Router } from 'express';
import { QueueCreate, QueueSettings } from '@tracker/contracts';
import { answerOnce, parseBody, parseId } from '@tracker/kit';
import { contextOf } from '@tracker/authz';
import { assertWorkspaceAdmin, createQueue } from '../domain/create-queue.use-case';
import type { IssuesDeps } from '../domain/deps';
import { listQueues } from '../domain/list-queues.use-case';
import { updateQueue } from '../domain/update-queue.use-case';
import { queueJson } from './json';

export function queuesRoutes(router: Router, deps: IssuesDeps): void {
  router.get('/api/v1/queues', async (_req, res) => {
    res.json((await listQueues(deps, contextOf(res))).map(queueJson));
  });

  router.post('/api/v1/queues', async (req, res) => {
    const ctx = contextOf(res);
    // A member is refused before the body is looked at (as PATCH /users does).
    assertWorkspaceAdmin(ctx);
    const input = parseBody(QueueCreate, req.body);
    await answerOnce(req, res, deps.store.idempotentRequests, { status: 201, render: queueJson }, (once) => createQueue(deps, ctx, input, once));
  });

  router.patch('/api/v1/queues/:queue_id', async (req, res) => {
    const queueId = parseId('queue_id', req.params.queue_id);
    const settings = parseBody(QueueSettings, req.body);
    res.json(queueJson(await updateQueue(deps, contextOf(res), queueId, settings)));
  });
}
