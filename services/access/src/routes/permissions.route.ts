import type { Router } from 'express';
import { z } from 'zod';
import { effectiveRole, QueueRole } from '@tracker/contracts';
import { parseBody, parseId, principalOf } from '@tracker/kit';
import type { AccessDeps } from '../domain/deps';
import { listQueuePermissions } from '../domain/list-queue-permissions.use-case';
import type { PermissionChangeRecord, QueueMember } from '../domain/permissions.model';
import { setQueuePermission } from '../domain/set-queue-permission.use-case';

const QueuePermission = z.strictObject({ role: QueueRole });

export function memberJson(member: QueueMember) {
  const effective = effectiveRole(member.workspaceRole, member.explicitRole);
  return {
    user_id: member.userId,
    name: member.name,
    active: member.active,
    workspace_role: member.workspaceRole,
    role: effective?.role ?? null,
    role_source: effective?.role_source ?? null,
    explicit_role: member.explicitRole,
    inherited_role: member.workspaceRole === 'admin' ? 'admin' : null,
  };
}

const changeJson = (change: PermissionChangeRecord) => ({
  user_id: change.userId,
  from: change.fromRole,
  to: change.toRole,
  actor_id: change.actorId,
  at: change.at.toISOString(),
});

export function permissionsRoutes(router: Router, deps: AccessDeps): void {
  router.get('/api/v1/queues/:queue_id/permissions', async (req, res) => {
    const caller = principalOf(res);
    const queueId = parseId('queue_id', req.params.queue_id);
    const { queue, members, history } = await listQueuePermissions(deps, caller, queueId);
    res.json({ queue_id: queue.id, members: members.map(memberJson), history: history.map(changeJson) });
  });

  router.put('/api/v1/queues/:queue_id/permissions/:user_id', async (req, res) => {
    const caller = principalOf(res);
    const queueId = parseId('queue_id', req.params.queue_id);
    const userId = parseId('user_id', req.params.user_id);
    const { role } = parseBody(QueuePermission, req.body);
    const result = await setQueuePermission(deps, caller, { queueId, userId, role, requestId: res.locals.requestId });
    res.json({ queue_id: result.queueId, ...memberJson(result.member) });
  });

  router.delete('/api/v1/queues/:queue_id/permissions/:user_id', async (req, res) => {
    const caller = principalOf(res);
    const queueId = parseId('queue_id', req.params.queue_id);
    const userId = parseId('user_id', req.params.user_id);
    const result = await setQueuePermission(deps, caller, { queueId, userId, role: null, requestId: res.locals.requestId });
    res.json({ queue_id: result.queueId, ...memberJson(result.member) });
  });
}
