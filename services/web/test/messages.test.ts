import { ProblemError } from '../app/src/http';
import { SignedOutError } from '../app/src/session-token';
import { setupProblem } from '../app/src/pages/Setup';
import { signInProblem, waitInWords } from '../app/src/pages/SignIn';

/** What the pages say when the access service refuses: words, not codes. */
const problem = (status: number, code: string, extra: { retryAfterSeconds?: number } = {}) => new ProblemError({ status, code, detail: `detail of ${code}`, ...extra });

describe('sign-in problems', () => {
  test('a wrong email or password says so, without telling which', () => {
    expect(signInProblem(problem(401, 'invalid_credentials'))).toBe('The email or password is not right. Check both and try again.');
  });

  test.each([
    [30, 'Try again in 30 seconds.'],
    [1, 'Try again in 1 second.'],
    [60, 'Try again in 1 minute.'],
    [61, 'Try again in 2 minutes.'],
    [900, 'Try again in 15 minutes.'],
  ])('too many attempts with Retry-After %i says when to try again: %s', (seconds, words) => {
    expect(signInProblem(problem(429, 'rate_limited', { retryAfterSeconds: seconds }))).toBe(`Too many sign-in attempts. ${words}`);
  });

  test('too many attempts without Retry-After asks to wait', () => {
    expect(signInProblem(problem(429, 'rate_limited'))).toBe('Too many sign-in attempts. Wait a while, then try again.');
  });

  test('anything else is the problem`s own detail, and a lost connection says so', () => {
    expect(signInProblem(problem(403, 'forbidden'))).toBe('detail of forbidden');
    expect(signInProblem(new SignedOutError())).toBe('Your session has ended. Sign in again.');
    expect(waitInWords(119)).toBe('2 minutes');
  });
});

describe('setup problems', () => {
  test('a stale or used link asks for a new one', () => {
    expect(setupProblem(problem(400, 'invalid_setup_code'))).toBe('This setup link has expired or has already been used. Ask an admin for a new link.');
  });

  test('a password the service refuses says what it must be', () => {
    expect(setupProblem(problem(422, 'validation_failed'))).toBe('The password must be 12 to 256 characters long.');
  });
});
