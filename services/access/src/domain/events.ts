import { buildEvent } from '@tracker/events';
import type { QueueRole } from '@tracker/contracts';
import type { WorkspaceRole } from '@tracker/kit';
import { userWireFields, type User } from './model';

/** Integration events (libs/events) of this service, stamped with the aggregate's revision. */

/** `actorId` null: the operator's command line made the user. */
export const userCreatedEvent = (user: User & { revision: number }, actorId: number | null, requestId?: string) =>
  buildEvent({
    type: 'user.created',
    workspaceId: user.workspaceId,
    aggregateId: user.id,
    revision: user.revision,
    actorId,
    requestId,
    data: { user: userWireFields(user) },
  });

/** `previous`: the old value of each field that changed (name, role, active, email). */
export const userUpdatedEvent = (user: User & { revision: number }, previous: UserPrevious, actorId: number | null, requestId?: string) =>
  buildEvent({
    type: 'user.updated',
    workspaceId: user.workspaceId,
    aggregateId: user.id,
    revision: user.revision,
    actorId,
    requestId,
    data: { user: userWireFields(user), previous },
  });

export type UserPrevious = Partial<Pick<User, 'name' | 'role' | 'active' | 'email'>>;

/** The old values of the fields of `before` that `after` changed. */
export function userPrevious(before: User, after: User): UserPrevious {
  const previous: UserPrevious = {};
  if (before.name !== after.name) previous.name = before.name;
  if (before.role !== after.role) previous.role = before.role;
  if (before.active !== after.active) previous.active = before.active;
  if (before.email !== after.email) previous.email = before.email;
  return previous;
}

/** `previousRole`: the explicit role before; `member`: the user as the permissions read shows them. */
export const permissionChangedEvent = (
  grant: {
    workspaceId: number;
    queueId: number;
    userId: number;
    role: QueueRole | null;
    previousRole: QueueRole | null;
    member: { name: string; active: boolean; workspaceRole: WorkspaceRole };
    revision: number;
  },
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
    data: {
      queue_id: grant.queueId,
      user_id: grant.userId,
      role: grant.role,
      previous_role: grant.previousRole,
      member: { name: grant.member.name, active: grant.member.active, workspace_role: grant.member.workspaceRole },
    },
  });
