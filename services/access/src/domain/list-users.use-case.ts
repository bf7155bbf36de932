import type { UserPrincipal } from '@tracker/kit';
import type { AccessDeps } from './deps';

/** Every member of the caller's workspace, deactivated ones included. */
export function listUsers(deps: Pick<AccessDeps, 'users'>, caller: UserPrincipal) {
  return deps.users.listInWorkspace(caller.workspaceId);
}
