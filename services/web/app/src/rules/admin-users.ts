import type { Problem } from '../http';

/**
 * The users page's rules: when a setup link stops working, and what a refused change of a
 * user means, in words for the row it happened on.
 */

/** A setup link works once, within this many hours of being made (decisions: "valid 72 hours, once, the newest one only"). */
export const SETUP_LINK_HOURS = 72;

/** When a link made at `issuedAt` stops working. The answer carries no expiry, so it is counted from when the answer came. */
export const setupLinkExpiry = (issuedAt: Date): Date => new Date(issuedAt.getTime() + SETUP_LINK_HOURS * 3_600_000);

export type UserChange = 'role' | 'deactivate' | 'activate' | 'setup-link';

/**
 * A refused change of a user, told for that user's row. `self`: the person changing is the
 * one changed (then it says "you").
 */
export function userChangeProblem(problem: Problem, change: UserChange, user: { name: string }, self: boolean): string {
  const who = self ? 'You are' : `${user.name} is`;
  switch (problem.code) {
    case 'last_active_admin':
      return change === 'role'
        ? `${who} the only active admin of the workspace, so ${self ? 'you stay' : 'they stay'} an admin. Make someone else an admin first.`
        : `${who} the only active admin of the workspace and cannot be deactivated. Make someone else an admin first.`;
    case 'forbidden':
      return 'Only a workspace admin may change users, and you are not one any more. Reload the page.';
    case 'not_found':
      return `${user.name} is no longer in this workspace. Reload the page.`;
    case 'email_taken':
      return 'Someone else already has this email: each person signs in with an email of their own.';
    case 'validation_failed':
      if (change === 'setup-link' && problem.errors?.some((error) => error.path === 'email'))
        return `${user.name} has no email to sign in with: give one, and the link is made for it.`;
      return problem.detail;
    default:
      return problem.detail;
  }
}

/** What a successful change did, said once in the page's status line. */
export function userChangeDone(change: Exclude<UserChange, 'setup-link'>, user: { name: string; role: 'admin' | 'member' }, self: boolean): string {
  const name = self ? 'You' : user.name;
  if (change === 'role') return user.role === 'admin' ? `${name} ${self ? 'are' : 'is'} now an admin of the workspace.` : `${name} ${self ? 'are' : 'is'} now a member of the workspace.`;
  if (change === 'deactivate') return `${name} ${self ? 'are' : 'is'} deactivated: ${self ? 'your' : 'their'} sessions and tokens no longer work.`;
  return `${name} ${self ? 'are' : 'is'} active again and can sign in.`;
}
