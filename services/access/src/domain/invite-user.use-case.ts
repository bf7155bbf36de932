import type { UserPrincipal, WorkspaceRole } from '@tracker/kit';
import type { AccessDeps } from './deps';
import type { Repositories } from './ports';
import { accessErrors } from './access.errors';
import { emailKeyOf, setupLinkExpiry, setupUrlOf } from './accounts.rules';
import type { User } from './model';
import { hashSecret, newSecret } from './secrets';
import { assertActiveAdmin, assertWorkspaceAdmin } from './users.rules';
import { userCreatedEvent, userPrevious, userUpdatedEvent } from './events';

type InviteDeps = Pick<AccessDeps, 'store' | 'clock' | 'accounts'>;

/** A new setup link for the user, in the caller's transaction: earlier ones are void. */
export async function newSetupLink(deps: Pick<AccessDeps, 'clock' | 'accounts'>, tx: Repositories, userId: number): Promise<string> {
  const code = newSecret();
  await tx.setupLinks.replace(userId, hashSecret(code), setupLinkExpiry(deps.clock()));
  return setupUrlOf(deps.accounts.publicUrl, code);
}

/** POST /api/v1/users: a workspace admin adds a colleague by email; the answer carries the setup link to hand over. */
export async function inviteUser(
  deps: InviteDeps,
  caller: UserPrincipal,
  input: { name: string; email: string; role: WorkspaceRole },
  requestId?: string,
): Promise<{ user: User; setupUrl: string }> {
  assertWorkspaceAdmin(caller);
  return deps.store.transaction(async (tx) => {
    assertActiveAdmin(await tx.users.findInWorkspace(caller.workspaceId, caller.userId));
    const created = await tx.users.create({ workspaceId: caller.workspaceId, name: input.name, role: input.role, email: input.email, emailKey: emailKeyOf(input.email) });
    if (created === null) throw accessErrors.emailTaken();
    const setupUrl = await newSetupLink(deps, tx, created.id);
    const { revision: _revision, ...user } = created;
    await tx.outbox.append(userCreatedEvent(created, caller.userId, requestId));
    return { user, setupUrl };
  });
}

/**
 * POST /api/v1/users/{user_id}/setup-link (a workspace admin), and the operator's
 * `user setup-link`: a new setup link for a user of the workspace, optionally giving or
 * changing their email first. A user with no email must be given one (422).
 */
export async function issueSetupLink(
  deps: InviteDeps,
  caller: UserPrincipal | 'operator',
  userId: number,
  email?: string,
  requestId?: string,
): Promise<{ userId: number; setupUrl: string }> {
  if (caller !== 'operator') assertWorkspaceAdmin(caller);
  return deps.store.transaction(async (tx) => {
    const target = caller === 'operator' ? await tx.users.findWithWorkspace(userId) : await tx.users.findInWorkspace(caller.workspaceId, userId);
    if (caller !== 'operator') assertActiveAdmin(await tx.users.findInWorkspace(caller.workspaceId, caller.userId));
    if (!target) throw accessErrors.userNotFound();
    if (email !== undefined && email !== target.email) {
      const updated = await tx.users.setEmail(userId, email, emailKeyOf(email));
      if (!updated) throw accessErrors.emailTaken();
      await tx.outbox.append(userUpdatedEvent(updated, userPrevious(target, updated), caller === 'operator' ? null : caller.userId, requestId));
    }
    if (email === undefined && target.email === null) throw accessErrors.emailRequired();
    return { userId, setupUrl: await newSetupLink(deps, tx, userId) };
  });
}
