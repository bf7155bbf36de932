import { AppError, forbidden, notFound } from '@tracker/kit';

export const accessErrors = {
  userNotFound: () => notFound('The user'),
  adminOnly: () => forbidden('Only a workspace admin may do this.'),
  lastActiveAdmin: () =>
    new AppError('last_active_admin', 'The last active admin of a workspace cannot be demoted or deactivated.'),
};
