import type { UserPrincipal } from '@tracker/kit';
import type { AccessDeps } from './deps';

/** Every member of the caller's workspace, deactivated ones included. */
export function listUsers(deps: Pick<AccessDeps, 'store'>, caller: UserPrincipal) {
  return deps.store.users.listInWorkspace(caller.workspaceId);
}
