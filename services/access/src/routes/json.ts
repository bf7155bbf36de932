import {
  effectiveRole,
  type InvitedUser as InvitedUserJson,
  type Me as MeJson,
  type PermissionChange as PermissionChangeJson,
  type PermissionChangePage as PermissionChangePageJson,
  type PersonalToken as PersonalTokenJson,
  type PersonalTokenCreated as PersonalTokenCreatedJson,
  type QueueMember as QueueMemberJson,
  type QueuePermission as QueuePermissionJson,
  type QueuePermissions as QueuePermissionsJson,
  type Session as SessionJson,
  type SessionToken as SessionTokenJson,
  type User as UserJson,
} from '@tracker/contracts';
import type { UserPrincipal } from '@tracker/kit';
import type { Resolution } from '../domain/resolve-token.use-case';
import { userWireFields, type PersonalTokenRecord, type User, type UserWithWorkspace } from '../domain/model';
import type { PermissionChangeRecord, PermissionHistory, PermissionHistoryPage, QueueMember, QueueRef } from '../domain/permissions.model';

/** The domain's objects as the API's JSON (libs/contracts): where field names change case (a user's own fields with the events, domain/model.ts). */
export const userJson = (user: User): UserJson => {
  const { id, ...fields } = userWireFields(user);
  return { id, workspace_id: user.workspaceId, ...fields };
};

export const meJson = (me: UserWithWorkspace): MeJson => ({ ...userJson(me), workspace: { id: me.workspace.id, name: me.workspace.name } });

export const sessionJson = (user: UserWithWorkspace): SessionJson => ({ user: userJson(user), workspace: user.workspace });

export const invitedUserJson = (user: User, setupUrl: string): InvitedUserJson => ({ ...userJson(user), setup_url: setupUrl });

export const tokenJson = (token: PersonalTokenRecord): PersonalTokenJson => ({
  id: token.id,
  name: token.name,
  prefix: token.hint,
  created_at: token.createdAt.toISOString(),
  expires_at: token.expiresAt?.toISOString() ?? null,
  last_used_at: token.lastUsedAt?.toISOString() ?? null,
});

/** A new personal token with its secret, shown this once. */
export const tokenCreatedJson = ({ token, ...record }: PersonalTokenRecord & { token: string }): PersonalTokenCreatedJson => ({ ...tokenJson(record), token });

export const sessionTokenJson = (issued: { token: string; expiresInSeconds: number }): SessionTokenJson => ({
  access_token: issued.token,
  expires_in: issued.expiresInSeconds,
});

/** The gateway's answer: the principal, or null (with `expired: true` for a token past its end). */
export const resolutionJson = (resolution: Resolution): { principal: UserPrincipal } | { principal: null; expired?: true } =>
  resolution.principal ? { principal: resolution.principal } : { principal: null, ...(resolution.expired ? { expired: true as const } : {}) };

function memberJson(member: QueueMember): QueueMemberJson {
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

const changeJson = (change: PermissionChangeRecord): PermissionChangeJson => ({
  user_id: change.userId,
  from: change.fromRole,
  to: change.toRole,
  actor_id: change.actorId,
  at: change.at.toISOString(),
});

export const queuePermissionsJson = (read: { queue: QueueRef; members: QueueMember[]; history: PermissionHistory }): QueuePermissionsJson => ({
  queue_id: read.queue.id,
  members: read.members.map(memberJson),
  history: read.history.items.map(changeJson),
  history_total: read.history.total,
});

export const permissionChangePageJson = (page: PermissionHistoryPage): PermissionChangePageJson => ({
  items: page.items.map(changeJson),
  total: page.total,
  next_after_id: page.nextAfterId,
});

export const queuePermissionJson = (result: { queueId: number; member: QueueMember }): QueuePermissionJson => ({ queue_id: result.queueId, ...memberJson(result.member) });
