import { accessErrors } from './access.errors';
import type { AccessDeps } from './deps';
import { generateToken } from './tokens';

/** Operator command: another personal token for an existing user. */
export async function createToken(deps: Pick<AccessDeps, 'store'>, input: { userId: number }) {
  if (!(await deps.store.users.exists(input.userId))) throw accessErrors.noSuchUser(input.userId);
  const token = generateToken();
  const tokenId = await deps.store.tokens.create(input.userId, token);
  return { token_id: tokenId, token: token.token };
}
