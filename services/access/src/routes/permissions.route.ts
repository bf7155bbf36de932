import type { Router } from 'express';
import {
  effectiveRole,
  ListPage,
  QueuePermissionInput,
  type PermissionChange,
  type PermissionChangePage,
  type QueueMember as QueueMemberJson,
  type QueuePermission,
  type QueuePermissions,
} from '@tracker/contracts';
import { parseBody, parseId, parseQuery, principalOf } from '@tracker/kit';
import type { AccessDeps } from '../domain/deps';
import { listQueuePermissionHistory, listQueuePermissions } from '../domain/list-queue-permissions.use-case';
import type { PermissionChangeRecord, QueueMember } from '../domain/permissions.model';
import { setQueuePermission } from '../domain/set-queue-permission.use-case';

export function memberJson(member: QueueMember): QueueMemberJson {
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

const changeJson = (change: PermissionChangeRecord): PermissionChange => ({
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
    const body: QueuePermissions = { queue_id: queue.id, members: members.map(memberJson), history: history.items.map(changeJson), history_total: history.total };
    res.json(body);
  });

  // The rest of what the read embeds the newest of, paged as an issue's lists are.
  router.get('/api/v1/queues/:queue_id/permissions/history', async (req, res) => {
    const caller = principalOf(res);
    const queueId = parseId('queue_id', req.params.queue_id);
    const page = parseQuery(ListPage, req.query as Record<string, unknown>);
    const { items, total, nextAfterId } = await listQueuePermissionHistory(deps, caller, queueId, page);
    const body: PermissionChangePage = { items: items.map(changeJson), total, next_after_id: nextAfterId };
    res.json(body);
  });

  router.put('/api/v1/queues/:queue_id/permissions/:user_id', async (req, res) => {
    const caller = principalOf(res);
    const queueId = parseId('queue_id', req.params.queue_id);
    const userId = parseId('user_id', req.params.user_id);
    const { role } = parseBody(QueuePermissionInput, req.body);
    const result = await setQueuePermission(deps, caller, { queueId, userId, role, requestId: res.locals.requestId });
    const body: QueuePermission = { queue_id: result.queueId, ...memberJson(result.member) };
    res.json(body);
  });

  router.delete('/api/v1/queues/:queue_id/permissions/:user_id', async (req, res) => {
    const caller = principalOf(res);
    const queueId = parseId('queue_id', req.params.queue_id);
    const userId = parseId('user_id', req.params.user_id);
    const result = await setQueuePermission(deps, caller, { queueId, userId, role: null, requestId: res.locals.requestId });
    const body: QueuePermission = { queue_id: result.queueId, ...memberJson(result.member) };
    res.json(body);
  });
}
