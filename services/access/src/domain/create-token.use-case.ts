import { AppError } from '@tracker/kit';
import type { AccessDeps } from './deps';
import { generateToken } from './tokens';

/** Operator command: another personal token for an existing user. */
export async function createToken(deps: Pick<AccessDeps, 'workspaces' | 'tokens'>, input: { userId: number }) {
  if (!(await deps.workspaces.userExists(input.userId))) throw new AppError('not_found', `User ${input.userId} does not exist.`);
  const token = generateToken();
  const created = await deps.tokens.create(input.userId, token);
  return { token_id: created.id, token: token.token };
}
