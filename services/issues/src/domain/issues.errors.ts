import { AppError, forbidden, invalid, notFound } from '@tracker/kit';
import { ISSUE_FIELD_API_NAMES } from './issue-wire';
import type { IssueFields } from './model';

/** Every refusal of the issues context. Hidden objects answer exactly like missing ones. */
export const issuesErrors = {
  queueNotFound: () => notFound('The queue'),
  issueNotFound: () => notFound('The issue'),
  workspaceAdminOnly: () => forbidden('Only a workspace admin may create queues.'),
  queueAdminOnly: () => forbidden('Changing a queue needs the admin role on it.'),
  readWriteNeeded: () => forbidden('This needs the read-write or admin role on the queue.'),
  /** Unreadable and nonexistent queues in a body are the same 403, so existence does not leak. */
  queueNotAccessible: (path: string) =>
    forbidden(`A queue named in ${path} does not exist or is not readable by you.`),
  queueKeyTaken: (key: string) => new AppError('queue_key_taken', `The queue key ${key} is already used in this workspace.`),
  versionConflict: (current: number) =>
    new AppError('version_conflict', 'The issue changed since you read it. Re-read it and reconsider the change.', {
      fields: { version: current },
    }),
  preconditionFailed: (current: number) =>
    new AppError('precondition_failed', 'If-Match names another version of the issue than its current one. Re-read it and reconsider the change.', {
      fields: { version: current },
    }),
  /** A field's value refused for what it names (the field's API name is the error's path). */
  invalidField: (field: keyof IssueFields, message: string) => invalid([{ path: ISSUE_FIELD_API_NAMES[field], message }]),
  /** A limit of the issue, not of this body: reported on the body as a whole (as dashboards per workspace). */
  issueFull: (what: 'comments' | 'worklogs', max: number) =>
    invalid(
      [{ path: '(body)', message: `an issue holds at most ${max} ${what}, and this one is full` }],
      `An issue holds at most ${max} ${what}; this one has that many already.`,
    ),
};
