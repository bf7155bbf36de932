import type { Problem } from '../app/src/http';
import { checkInvite, checkNewQueue, checkQueueSettings, inviteProblems, newQueueProblems } from '../app/src/rules/admin-forms';
import { hasProblems, placeProblem } from '../app/src/rules/problems';

const problem = (code: string, extra: Partial<Problem> = {}): Problem => ({ status: 422, code, detail: `detail of ${code}`, ...extra });

describe('a new queue, checked before it is sent', () => {
  test('when key, name and description are fine, then there is no problem', () => {
    for (const key of ['OPS', 'ab', 'Web_2', 'A1234567890Z']) {
      expect({ key, problems: checkNewQueue({ key, name: 'Operations', description: '' }) }).toEqual({ key, problems: {} });
    }
  });

  test('when the key is empty, too short, too long, starts with a digit or holds other characters, then the key field says what a key is', () => {
    expect(checkNewQueue({ key: '  ', name: 'Ops', description: '' }).key).toMatch(/^Give the queue a key/);
    for (const key of ['A', 'ABCDEFGHIJKLM', '1OPS', '_OPS', 'OP-S', 'OP S', 'ÖPS']) {
      const problems = checkNewQueue({ key, name: 'Ops', description: '' });
      expect({ key, words: problems.key }).toEqual({ key, words: `“${key}” cannot be a key. A key is 2 to 12 letters, digits or _, starting with a letter, such as OPS or WEB_2.` });
      expect(hasProblems(problems)).toBe(true);
    }
  });

  test('when the name is blank or over 100 characters, or the description over 10,000, then each field says so', () => {
    const problems = checkNewQueue({ key: 'OPS', name: ' ', description: 'd'.repeat(10_001) });
    expect(problems).toEqual({ name: 'Give the queue a name.', description: 'A description is at most 10,000 characters (this one has 10,001).' });
    expect(checkQueueSettings({ name: 'n'.repeat(101), description: '' })).toEqual({ name: 'A name is at most 100 characters (this one has 101).' });
    expect(checkQueueSettings({ name: 'n'.repeat(100), description: 'd'.repeat(10_000) })).toEqual({});
  });
});

describe('a refused queue, its problem placed next to the field', () => {
  test('when the key is taken, then the key field says so with the key as stored (upper-case)', () => {
    expect(newQueueProblems(problem('queue_key_taken', { status: 409 }), ' ops ')).toEqual({
      fields: { key: 'There is already a queue with the key OPS (keys are the same whatever their case). Choose another key.' },
      general: '',
    });
  });

  test('when the service finds the key invalid, then the key field explains keys, and other fields keep the service`s message', () => {
    const refused = problem('validation_failed', {
      errors: [
        { path: 'key', message: 'must start with a letter' },
        { path: 'name', message: 'too long' },
      ],
    });
    expect(newQueueProblems(refused, 'x!')).toEqual({
      fields: { key: '“x!” cannot be a key. A key is 2 to 12 letters, digits or _, starting with a letter, such as OPS or WEB_2.', name: 'Too long.' },
      general: '',
    });
  });

  test('when a problem names no field of the form, then it is said once for the form', () => {
    expect(newQueueProblems(problem('forbidden', { status: 403 }), 'OPS')).toEqual({ fields: {}, general: 'detail of forbidden' });
    expect(placeProblem(problem('validation_failed', { errors: [{ path: '(body)', message: 'bad' }] }), ['key'] as const)).toEqual({ fields: {}, general: 'detail of validation_failed' });
  });
});

describe('an invitation', () => {
  test('when name and email look right, then there is no problem', () => {
    expect(checkInvite({ name: 'Bob Smith', email: ' bob@example.com ' })).toEqual({});
  });

  test('when the name is blank or the email empty, malformed or too long, then each field says so', () => {
    expect(checkInvite({ name: '', email: '' })).toEqual({ name: 'Give your colleague a name.', email: 'Give their email: it is the name they sign in with.' });
    expect(checkInvite({ name: 'Bob', email: 'bob.example.com' }).email).toBe('“bob.example.com” is not an email address, such as name@example.com.');
    expect(checkInvite({ name: 'Bob', email: 'bob smith@example.com' }).email).toMatch(/is not an email address/);
    expect(checkInvite({ name: 'Bob', email: `${'b'.repeat(250)}@e.com` }).email).toBe('An email is at most 254 characters.');
  });

  test('when the email is taken, then the email field says so', () => {
    expect(inviteProblems(problem('email_taken', { status: 409 }))).toEqual({
      fields: { email: 'Someone already has this email (in this or another workspace): each person signs in with an email of their own.' },
      general: '',
    });
  });

  test('when the service refuses the email, then the email field asks to check it', () => {
    expect(inviteProblems(problem('validation_failed', { errors: [{ path: 'email', message: 'Invalid email' }] })).fields.email).toMatch(/^This is not an email address Tracker takes/);
  });
});
