import type { AccessDeps } from './deps';

/** Internal: which ids are users of the workspace, and whether active (assignee checks). */
export function lookupUsers(deps: Pick<AccessDeps, 'permissions'>, input: { workspaceId: number; userIds: number[] }) {
  return deps.permissions.lookupUsers(input.workspaceId, [...new Set(input.userIds)]);
}
