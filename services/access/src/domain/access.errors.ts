import { ACCOUNT_LIMITS } from '@tracker/contracts';
import { AppError, forbidden, notFound } from '@tracker/kit';

/** Every refusal of the access context. Hidden objects answer exactly like missing ones. */
export const accessErrors = {
  userNotFound: () => notFound('The user'),
  queueNotFound: () => notFound('The queue'),
  adminOnly: () => forbidden('Only a workspace admin may do this.'),
  queueAdminOnly: () => forbidden('Only an admin of the queue or of the workspace may manage its permissions.'),
  lastActiveAdmin: () =>
    new AppError('last_active_admin', 'The last active admin of a workspace cannot be demoted or deactivated.'),
  emailTaken: () => new AppError('email_taken', 'Another user already has this email.'),
  emailRequired: () =>
    new AppError('validation_failed', 'The user has no email: give one, the sign-in name the setup link is for.', {
      errors: [{ path: 'email', message: 'is required: the user has none' }],
    }),
  invalidCredentials: () => new AppError('invalid_credentials', 'The email or the password is not right.'),
  signInThrottled: (retryAfterSeconds: number) =>
    new AppError('rate_limited', 'Too many failed sign-ins for this email or from this address. Try again later.', { headers: { 'Retry-After': String(retryAfterSeconds) } }),
  invalidSetupCode: () => new AppError('invalid_setup_code', 'This setup link is not valid: it was used, has expired, or a newer one was made. Ask an admin for a new one.'),
  noSession: () => new AppError('unauthorized', 'Not signed in, or the session has ended.'),
  wrongCurrentPassword: () =>
    new AppError('validation_failed', 'The current password is not right; nothing was changed.', { errors: [{ path: 'current_password', message: 'is not the current password' }] }),
  sessionRequired: () =>
    new AppError('session_required', 'Personal tokens are made by a person signed in (with a session\'s token), not with another personal token.'),
  tokenNotFound: () => notFound('The token'),
  tooManyTokens: () =>
    new AppError('validation_failed', `A person holds at most ${ACCOUNT_LIMITS.tokensPerUser} personal tokens: revoke one first.`, {
      errors: [{ path: '(body)', message: `at most ${ACCOUNT_LIMITS.tokensPerUser} personal tokens` }],
    }),
  crossSite: () => new AppError('cross_site_request', 'Requests to /auth from another site are refused.'),
  queueRegisteredElsewhere: (queueId: number) =>
    new AppError('validation_failed', `Queue ${queueId} is registered to another workspace.`, {
      errors: [{ path: 'queue_id', message: 'registered to another workspace' }],
    }),
  /** The operator command line's: it sees every workspace, so it names the id it did not find. */
  noSuchWorkspace: (workspaceId: number) => new AppError('not_found', `Workspace ${workspaceId} does not exist.`),
  noSuchUser: (userId: number) => new AppError('not_found', `User ${userId} does not exist.`),
  noSuchToken: (tokenId: number) => new AppError('not_found', `Token ${tokenId} does not exist.`),
};
