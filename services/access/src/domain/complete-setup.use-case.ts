import type { AccessDeps } from './deps';
import { accessErrors } from './access.errors';
import { endSessions, startSession } from './sessions';
import { hashSecret, isSecretShaped } from './secrets';

/**
 * POST /auth/setup: the setup link's form. Sets the password and signs in; the link is
 * spent. A code that is unknown, used, expired or superseded (only a user's newest link
 * counts: issuing one deletes the others), or a deactivated user's, is 400. Any session
 * the user had ends (the link also serves a forgotten password).
 */
export async function completeSetup(deps: Pick<AccessDeps, 'store' | 'cache' | 'clock' | 'passwords'>, input: { code: string; password: string }) {
  if (!isSecretShaped(input.code)) throw accessErrors.invalidSetupCode();
  const codeHash = hashSecret(input.code);
  // Checked before the hash is computed: a made-up code costs no Argon2id work.
  const usable = async (tx: Pick<AccessDeps['store'], 'setupLinks' | 'users'>) => {
    const link = await tx.setupLinks.take(codeHash);
    if (!link || link.usedAt !== null || link.expiresAt <= deps.clock()) return null;
    const user = await tx.users.findWithWorkspace(link.userId);
    return user?.active ? link : null;
  };
  if (!(await usable(deps.store))) throw accessErrors.invalidSetupCode();
  const passwordHash = await deps.passwords.hash(input.password);
  const { userId, staleKeys } = await deps.store.transaction(async (tx) => {
    const link = await usable(tx);
    if (!link) throw accessErrors.invalidSetupCode();
    await tx.setupLinks.markUsed(link.id);
    await tx.users.setPassword(link.userId, passwordHash);
    return { userId: link.userId, staleKeys: await endSessions(tx, { userId: link.userId, except: null }) };
  });
  await deps.cache.invalidate(staleKeys);
  return startSession(deps, userId);
}
