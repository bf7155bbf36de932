import { type UserPrincipal } from '@tracker/kit';
import { authCacheKey, UNKNOWN_TOKEN, UNKNOWN_TOKEN_TTL_SECONDS } from '@tracker/authz';
import type { AccessDeps } from './deps';
import type { TokenOwner } from './model';

const principalOf = (owner: TokenOwner): UserPrincipal | null =>
  owner.revoked || !owner.active
    ? null
    : { kind: 'user', userId: owner.userId, workspaceId: owner.workspaceId, workspaceRole: owner.workspaceRole, tokenId: owner.tokenId };

/**
 * The gateway's cache miss: who owns this token hash, if it may be used at all. A hash
 * no token has is the cheap case (one plain read, remembered in the cache), since
 * floods of made-up tokens are what reaches this.
 */
export async function resolveToken(deps: Pick<AccessDeps, 'store' | 'cache'>, tokenHash: string): Promise<UserPrincipal | null> {
  const owner = await deps.store.tokens.findOwner(tokenHash);
  if (!owner || !deps.cache.isAvailable()) {
    if (!owner && deps.cache.isAvailable()) await deps.cache.store(authCacheKey(tokenHash), UNKNOWN_TOKEN, UNKNOWN_TOKEN_TTL_SECONDS);
    return owner ? principalOf(owner) : null;
  }
  // A principal is cached only while its token and user rows are held FOR SHARE: a revoke
  // or user change (which locks them) cannot commit in between, so what is cached is never
  // older than that change's own cache delete, which follows its commit.
  return deps.store.transaction(async (tx) => {
    const locked = await tx.tokens.lockOwner(tokenHash);
    const principal = locked ? principalOf(locked) : null;
    if (principal) await deps.cache.store(authCacheKey(tokenHash), principal);
    return principal;
  });
}
