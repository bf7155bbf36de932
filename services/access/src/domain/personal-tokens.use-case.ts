import { ACCOUNT_LIMITS } from '@tracker/contracts';
import { authCacheKey } from '@tracker/authz';
import type { UserPrincipal } from '@tracker/kit';
import type { AccessDeps } from './deps';
import { accessErrors } from './access.errors';
import { tokenExpiry } from './accounts.rules';
import type { PersonalTokenRecord } from './model';
import { generateToken } from './tokens';

/** GET /api/v1/tokens: the caller's own personal tokens, newest first (revoked ones and session tokens are not listed). */
export function listTokens(deps: Pick<AccessDeps, 'store'>, caller: UserPrincipal): Promise<PersonalTokenRecord[]> {
  return deps.store.tokens.listPersonal(caller.userId);
}

/**
 * POST /api/v1/tokens: a personal token, its secret shown this once. Only a person signed
 * in makes tokens: the request must come with a session's token (POST /auth/token), so a
 * leaked personal token cannot mint more (403 session_required).
 */
export async function createPersonalToken(deps: Pick<AccessDeps, 'store' | 'clock'>, caller: UserPrincipal, input: { name: string; expires_in_days: number | null }) {
  if ((await deps.store.tokens.sessionOf(caller.tokenId)) === null) throw accessErrors.sessionRequired();
  if ((await deps.store.tokens.listPersonal(caller.userId)).length >= ACCOUNT_LIMITS.tokensPerUser) throw accessErrors.tooManyTokens();
  const token = generateToken();
  const expiresAt = tokenExpiry(deps.clock(), input.expires_in_days);
  const id = await deps.store.tokens.create(caller.userId, token, { name: input.name, expiresAt, sessionId: null });
  const record = await deps.store.tokens.findPersonal(id, caller.userId);
  return { ...record!, token: token.token };
}

/** DELETE /api/v1/tokens/{token_id}: the caller's own personal token, in force on the very next request; anyone else's is 404. */
export async function revokePersonalToken(deps: Pick<AccessDeps, 'store' | 'cache'>, caller: UserPrincipal, tokenId: number) {
  const staleKeys = await deps.store.transaction(async (tx) => {
    const token = await tx.tokens.find(tokenId);
    if (!token || token.revoked || token.userId !== caller.userId || token.sessionId !== null) throw accessErrors.tokenNotFound();
    await tx.tokens.markRevoked(tokenId);
    const keys = [authCacheKey(token.hash)];
    await tx.cacheDebts.record(keys);
    return keys;
  });
  await deps.cache.invalidate(staleKeys);
  return { id: tokenId, revoked: true as const };
}

/** POST /internal/tokens/used: when tokens were last used, as the gateways saw it (batched, at most a minute late). */
export async function recordTokenUses(deps: Pick<AccessDeps, 'store'>, uses: Array<{ token_id: number; at: string }>): Promise<void> {
  if (uses.length > 0) await deps.store.tokens.recordUses(uses.map((use) => ({ tokenId: use.token_id, at: new Date(use.at) })));
}
