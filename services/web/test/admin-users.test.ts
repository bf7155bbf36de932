import type { Problem } from '../app/src/http';
import { setupLinkExpiry, userChangeDone, userChangeProblem } from '../app/src/rules/admin-users';

const problem = (code: string, extra: Partial<Problem> = {}): Problem => ({ status: 409, code, detail: `detail of ${code}`, ...extra });
const bob = { name: 'Bob Smith', role: 'member' as const };

describe('a setup link`s end', () => {
  test('when a link is made, then it stops working 72 hours later', () => {
    expect(setupLinkExpiry(new Date('2025-03-01T10:15:00Z')).toISOString()).toBe('2025-03-04T10:15:00.000Z');
  });
});

describe('a refused change of a user, in words for their row', () => {
  test('when the only active admin demotes themselves, then it says they stay an admin and what to do first', () => {
    expect(userChangeProblem(problem('last_active_admin'), 'role', { name: 'Ada' }, true)).toBe(
      'You are the only active admin of the workspace, so you stay an admin. Make someone else an admin first.',
    );
    expect(userChangeProblem(problem('last_active_admin'), 'role', { name: 'Ada' }, false)).toBe(
      'Ada is the only active admin of the workspace, so they stay an admin. Make someone else an admin first.',
    );
  });

  test('when the only active admin is deactivated, then it says they cannot be', () => {
    expect(userChangeProblem(problem('last_active_admin'), 'deactivate', { name: 'Ada' }, false)).toBe(
      'Ada is the only active admin of the workspace and cannot be deactivated. Make someone else an admin first.',
    );
  });

  test('when the changer is no admin any more, or the user is gone, then it says so and to reload', () => {
    expect(userChangeProblem(problem('forbidden', { status: 403 }), 'role', bob, false)).toMatch(/you are not one any more\. Reload the page\.$/);
    expect(userChangeProblem(problem('not_found', { status: 404 }), 'activate', bob, false)).toBe('Bob Smith is no longer in this workspace. Reload the page.');
  });

  test('when a setup link is refused for want of an email, then it says the user has none', () => {
    const refused = problem('validation_failed', { status: 422, errors: [{ path: 'email', message: 'is required: the user has none' }] });
    expect(userChangeProblem(refused, 'setup-link', bob, false)).toBe('Bob Smith has no email to sign in with: give one, and the link is made for it.');
    expect(userChangeProblem(problem('validation_failed', { status: 422 }), 'role', bob, false)).toBe('detail of validation_failed');
  });

  test('when the problem is one the page has no words for, then it is the service`s detail', () => {
    expect(userChangeProblem(problem('rate_limited', { status: 429 }), 'role', bob, false)).toBe('detail of rate_limited');
  });
});

describe('a done change, said in the status line', () => {
  test('when a role or the activity changed, then it says what holds now', () => {
    expect(userChangeDone('role', { name: 'Bob Smith', role: 'admin' }, false)).toBe('Bob Smith is now an admin of the workspace.');
    expect(userChangeDone('role', { name: 'Ada', role: 'member' }, true)).toBe('You are now a member of the workspace.');
    expect(userChangeDone('deactivate', bob, false)).toBe('Bob Smith is deactivated: their sessions and tokens no longer work.');
    expect(userChangeDone('activate', bob, false)).toBe('Bob Smith is active again and can sign in.');
  });
});
