import type { AccessDeps } from './deps';
import { accessErrors } from './access.errors';
import { emailKeyOf } from './accounts.rules';
import { startSession } from './sessions';

/**
 * POST /auth/sign-in: a session for the right email and password. A wrong password, an
 * unknown email, a user without a password yet and a deactivated user all get the same
 * 401, after the same Argon2id work (an unknown email verifies a dummy hash). Failures
 * count per email and per client address; past either limit, 429 until the window ends.
 */
export async function signIn(deps: Pick<AccessDeps, 'store' | 'clock' | 'passwords' | 'throttle' | 'accounts'>, input: { email: string; password: string }, client: string) {
  const email = emailKeyOf(input.email);
  const failures = await deps.throttle.failures(email, client);
  const limits = deps.accounts.signInFailures;
  if (failures.email >= limits.perEmail || failures.client >= limits.perClient) throw accessErrors.signInThrottled(failures.retryAfterSeconds);
  const user = await deps.store.users.findByEmailKey(email);
  const matches = await deps.passwords.verify(user?.passwordHash ?? null, input.password);
  if (!user || !matches || !user.active) {
    await deps.throttle.recordFailure(email, client);
    throw accessErrors.invalidCredentials();
  }
  return startSession(deps, user.id);
}
