import type { UserPrincipal } from '@tracker/kit';
import { accessErrors } from './access.errors';
import type { AccessDeps } from './deps';

export async function getMe(deps: Pick<AccessDeps, 'store'>, caller: UserPrincipal) {
  const me = await deps.store.users.findWithWorkspace(caller.userId);
  // The gateway forwards principals of existing users only; a missing row means a stale principal.
  if (!me || me.workspaceId !== caller.workspaceId) throw accessErrors.userNotFound();
  return me;
}
