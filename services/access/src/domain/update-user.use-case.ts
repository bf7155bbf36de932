import { type UserPrincipal } from '@tracker/kit';
import { authCacheKey } from '@tracker/authz';
import { accessErrors } from './access.errors';
import type { AccessDeps } from './deps';
import { userPrevious, userUpdatedEvent } from './events';
import { endSessions } from './sessions';
import type { User, UserChanges } from './model';
import { assertActiveAdmin, assertKeepsAnActiveAdmin, assertWorkspaceAdmin, effectiveChanges } from './users.rules';

/**
 * PATCH /users/{id}: workspace admins only; the last active admin is protected.
 * Cached principals of the user's tokens are deleted before this returns, so a
 * deactivation or demotion holds for the very next request; a deactivation also ends the
 * user's sessions.
 */
export async function updateUser(
  deps: Pick<AccessDeps, 'store' | 'cache'>,
  caller: UserPrincipal,
  userId: number,
  changes: UserChanges,
  requestId?: string,
): Promise<User> {
  assertWorkspaceAdmin(caller);
  const { user, staleKeys } = await deps.store.transaction(async (tx) => {
    // The workspace row lock makes rules that count admins (two admins demoting each
    // other at once) see every committed change: actor, target and count are read under it.
    await tx.workspaces.lock(caller.workspaceId);
    const actor = await tx.users.findInWorkspace(caller.workspaceId, caller.userId);
    const target = await tx.users.findInWorkspace(caller.workspaceId, userId);
    const activeAdmins = await tx.users.countActiveAdmins(caller.workspaceId);
    if (!target) throw accessErrors.userNotFound();
    const effective = effectiveChanges(target, changes);
    // The admin rule first: when two admins demote each other at once, the
    // later one learns why it failed (409), not merely that it lost its role.
    assertKeepsAnActiveAdmin(target, effective, activeAdmins);
    assertActiveAdmin(actor);
    if (Object.keys(effective).length === 0) return { user: target, staleKeys: [] };

    const updated = await tx.users.update(target.id, effective);
    await tx.outbox.append(userUpdatedEvent(updated, userPrevious(target, updated), caller.userId, requestId));
    // The principals of the user's tokens are now stale. Recorded as cache debts in the same
    // transaction, so a failed cache delete after commit is retried rather than forgotten.
    const keys = (await tx.tokens.hashesOfUser(target.id)).map(authCacheKey);
    await tx.cacheDebts.record(keys);
    // A deactivated user's sessions end for good: reactivating them does not sign them back in.
    if (effective.active === false) await endSessions(tx, { userId: target.id, except: null });
    return { user: updated, staleKeys: keys };
  });
  await deps.cache.invalidate(staleKeys);
  return user;
}
