import { AppError, type WorkspaceRole } from '@tracker/kit';
import type { AccessDeps } from './deps';
import { generateToken } from './tokens';

/** Operator command: a new user in a workspace, with a first token. */
export async function addUser(
  deps: Pick<AccessDeps, 'workspaces'>,
  input: { workspaceId: number; name: string; role: WorkspaceRole },
) {
  const token = generateToken();
  const created = await deps.workspaces.addUser(input.workspaceId, input.name, input.role, token);
  if (!created) throw new AppError('not_found', `Workspace ${input.workspaceId} does not exist.`);
  return { user_id: created.userId, token: token.token };
}
