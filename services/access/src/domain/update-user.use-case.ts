import type { UserPrincipal } from '@tracker/kit';
import { accessErrors } from './access.errors';
import type { AccessDeps } from './deps';
import type { User, UserChanges } from './model';
import { assertActiveAdmin, assertKeepsAnActiveAdmin, assertWorkspaceAdmin, effectiveChanges } from './users.rules';

/**
 * PATCH /users/{id}: workspace admins only; the last active admin is protected.
 * Cached principals of the user's tokens are deleted before this returns, so a
 * deactivation or demotion holds for the very next request.
 */
export async function updateUser(
  deps: Pick<AccessDeps, 'users' | 'cache'>,
  caller: UserPrincipal,
  userId: number,
  changes: UserChanges,
  requestId?: string,
): Promise<User> {
  assertWorkspaceAdmin(caller);
  const { user, staleKeys } = await deps.users.changeInWorkspace(caller.workspaceId, caller.userId, userId, {
    decide: ({ actor, target, activeAdmins }) => {
      if (!target) throw accessErrors.userNotFound();
      const effective = effectiveChanges(target, changes);
      // The admin rule first: when two admins demote each other at once, the
      // later one learns why it failed (409), not merely that it lost its role.
      assertKeepsAnActiveAdmin(target, effective, activeAdmins);
      assertActiveAdmin(actor);
      return effective;
    },
  }, requestId);
  await deps.cache.invalidate(staleKeys);
  if (!user) throw accessErrors.userNotFound();
  return user;
}
