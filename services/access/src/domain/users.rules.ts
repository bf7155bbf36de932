import type { User, UserChanges } from './model';
import { accessErrors } from './access.errors';

/** The fields that would really change; an empty object means "nothing to do". */
export function effectiveChanges(user: User, changes: UserChanges): UserChanges {
  const result: UserChanges = {};
  if (changes.name !== undefined && changes.name !== user.name) result.name = changes.name;
  if (changes.role !== undefined && changes.role !== user.role) result.role = changes.role;
  if (changes.active !== undefined && changes.active !== user.active) result.active = changes.active;
  return result;
}

const isActiveAdmin = (u: { role: string; active: boolean }) => u.role === 'admin' && u.active;

/**
 * A workspace always keeps one active admin: demoting or deactivating the last one
 * is refused. `activeAdmins` must be counted under the same lock as the write.
 */
export function assertKeepsAnActiveAdmin(user: User, changes: UserChanges, activeAdmins: number): void {
  const after = { role: changes.role ?? user.role, active: changes.active ?? user.active };
  if (isActiveAdmin(user) && !isActiveAdmin(after) && activeAdmins <= 1) throw accessErrors.lastActiveAdmin();
}

export function assertActiveAdmin(actor: Pick<User, 'role' | 'active'> | null): void {
  if (!actor || !isActiveAdmin(actor)) throw accessErrors.adminOnly();
}

/** Function-level check on the caller's (gateway-verified) workspace role. */
export function assertWorkspaceAdmin(caller: { workspaceRole: string }): void {
  if (caller.workspaceRole !== 'admin') throw accessErrors.adminOnly();
}
