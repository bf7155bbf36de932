import { AppError } from '@tracker/kit';
import type { AccessDeps } from './deps';

/** Operator command: revoking is idempotent and holds for the very next request. */
export async function revokeToken(deps: Pick<AccessDeps, 'tokens' | 'cache'>, input: { tokenId: number }) {
  const revoked = await deps.tokens.revoke(input.tokenId);
  if (!revoked) throw new AppError('not_found', `Token ${input.tokenId} does not exist.`);
  await deps.cache.invalidate(revoked.staleKeys);
  return { token_id: input.tokenId, revoked: true as const };
}
