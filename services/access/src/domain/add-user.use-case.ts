import { AppError, type WorkspaceRole } from '@tracker/kit';
import type { AccessDeps } from './deps';
import { generateToken } from './tokens';

/** Operator command: a new user in a workspace, with a first token. */
export async function addUser(deps: Pick<AccessDeps, 'store'>, input: { workspaceId: number; name: string; role: WorkspaceRole }) {
  const token = generateToken();
  const userId = await deps.store.transaction(async (tx) => {
    if (!(await tx.workspaces.exists(input.workspaceId))) return null;
    const id = await tx.users.create({ workspaceId: input.workspaceId, name: input.name, role: input.role });
    await tx.tokens.create(id, token);
    return id;
  });
  if (userId === null) throw new AppError('not_found', `Workspace ${input.workspaceId} does not exist.`);
  return { user_id: userId, token: token.token };
}
