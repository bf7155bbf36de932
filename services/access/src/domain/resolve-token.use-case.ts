import { authCacheKey, type UserPrincipal } from '@tracker/kit';
import type { AccessDeps } from './deps';
import type { TokenOwner } from './model';

const principalOf = (owner: TokenOwner): UserPrincipal | null =>
  owner.revoked || !owner.active
    ? null
    : { kind: 'user', userId: owner.userId, workspaceId: owner.workspaceId, workspaceRole: owner.workspaceRole, tokenId: owner.tokenId };

/** The gateway's cache miss: who owns this token hash, if it may be used at all. */
export async function resolveToken(deps: Pick<AccessDeps, 'tokens' | 'cache'>, tokenHash: string) {
  if (!deps.cache.isAvailable()) {
    const owner = await deps.tokens.findOwner(tokenHash);
    return owner ? principalOf(owner) : null;
  }
  let principal: UserPrincipal | null = null;
  await deps.tokens.findOwner(tokenHash, async (owner) => {
    principal = principalOf(owner);
    if (principal) await deps.cache.store(authCacheKey(tokenHash), principal);
  });
  return principal;
}
