import type { AccessDeps } from './deps';

/** Internal: which ids are users of the workspace, and whether active (assignee checks). */
export function lookupUsers(deps: Pick<AccessDeps, 'store'>, input: { workspaceId: number; userIds: number[] }) {
  return deps.store.users.lookup(input.workspaceId, [...new Set(input.userIds)]);
}
