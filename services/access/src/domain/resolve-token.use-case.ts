import { type UserPrincipal } from '@tracker/kit';
import { authCacheKey, UNKNOWN_TOKEN, UNKNOWN_TOKEN_TTL_SECONDS } from '@tracker/authz';
import type { AccessDeps } from './deps';
import { isSessionLive, sessionDeadline } from './accounts.rules';
import type { TokenOwner } from './model';

/** What a token hash stands for now: its principal until when, or why it does not count. */
export type Resolution = { principal: UserPrincipal; until: Date | null } | { principal: null; expired: boolean };

/** A token counts while it is not revoked, its owner active, it has not expired, and (a session's token) its session counts. */
export function resolutionOf(owner: TokenOwner | null, now: Date): Resolution {
  if (!owner || owner.revoked || !owner.active) return { principal: null, expired: false };
  if ((owner.expiresAt && owner.expiresAt <= now) || (owner.session && !isSessionLive(owner.session, now))) return { principal: null, expired: true };
  const ends = [owner.expiresAt, owner.session && sessionDeadline(owner.session)].filter((d): d is Date => d !== null);
  const until = ends.length > 0 ? new Date(Math.min(...ends.map((d) => d.getTime()))) : null;
  return { principal: { kind: 'user', userId: owner.userId, workspaceId: owner.workspaceId, workspaceRole: owner.workspaceRole, tokenId: owner.tokenId }, until };
}

/**
 * The gateway's cache miss: who owns this token hash, if it may be used at all. A hash
 * no token has is the cheap case (one plain read, remembered in the cache), since
 * floods of made-up tokens are what reaches this.
 */
export async function resolveToken(deps: Pick<AccessDeps, 'store' | 'cache' | 'clock' | 'authCacheTtlSeconds'>, tokenHash: string): Promise<Resolution> {
  const owner = await deps.store.tokens.findOwner(tokenHash);
  if (!owner || !deps.cache.isAvailable()) {
    if (!owner && deps.cache.isAvailable()) await deps.cache.store(authCacheKey(tokenHash), UNKNOWN_TOKEN, UNKNOWN_TOKEN_TTL_SECONDS);
    return resolutionOf(owner, deps.clock());
  }
  // A principal is cached only while its token and user rows are held FOR SHARE: a revoke
  // or user change (which locks them) cannot commit in between, so what is cached is never
  // older than that change's own cache delete, which follows its commit. An entry never
  // outlives the token's expiry or its session's end.
  return deps.store.transaction(async (tx) => {
    const now = deps.clock();
    const resolution = resolutionOf(await tx.tokens.lockOwner(tokenHash), now);
    if (resolution.principal) {
      const left = resolution.until ? Math.floor((resolution.until.getTime() - now.getTime()) / 1000) : Infinity;
      const ttl = Math.min(deps.authCacheTtlSeconds, left);
      if (ttl >= 1) await deps.cache.store(authCacheKey(tokenHash), resolution.principal, ttl);
    }
    return resolution;
  });
}
