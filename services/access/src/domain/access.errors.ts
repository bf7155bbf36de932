import { AppError, forbidden, notFound } from '@tracker/kit';

export const accessErrors = {
  userNotFound: () => notFound('The user'),
  adminOnly: () => forbidden('Only a workspace admin may do this.'),
  lastActiveAdmin: () =>
    new AppError('last_active_admin', 'The last active admin of a workspace cannot be demoted or deactivated.'),
  queueRegisteredElsewhere: (queueId: number) =>
    new AppError('validation_failed', `Queue ${queueId} is registered to another workspace.`, {
      errors: [{ path: 'queue_id', message: 'registered to another workspace' }],
    }),
};
