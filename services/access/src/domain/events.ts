import { buildEvent } from '@tracker/events';
import type { QueueRole } from '@tracker/contracts';
import type { User } from './model';

/** Integration events (libs/events) of this service, stamped with the aggregate's revision. */

export const userUpdatedEvent = (user: User & { revision: number }, actorId: number, requestId?: string) =>
  buildEvent({
    type: 'user.updated',
    workspaceId: user.workspaceId,
    aggregateId: user.id,
    revision: user.revision,
    actorId,
    requestId,
    data: { user: { id: user.id, name: user.name, role: user.role, active: user.active } },
  });

export const permissionChangedEvent = (
  grant: { workspaceId: number; queueId: number; userId: number; role: QueueRole | null; revision: number },
  actorId: number,
  requestId?: string,
) =>
  buildEvent({
    type: 'permission.changed',
    workspaceId: grant.workspaceId,
    aggregateId: `${grant.queueId}:${grant.userId}`,
    revision: grant.revision,
    actorId,
    requestId,
    data: { queue_id: grant.queueId, user_id: grant.userId, role: grant.role },
  });
