import { newIssueProblems } from '../app/src/rules/new-issue';

const problem = (code: string, errors?: Array<{ path: string; message: string }>) => ({ code, detail: `detail of ${code}`, errors });

describe('a refused new issue, in words', () => {
  test('when the API names the fields (422), then each field gets its own problem as a sentence', () => {
    const problems = newIssueProblems(
      problem('validation_failed', [
        { path: 'description', message: 'must be at most 100000 characters' },
        { path: 'title', message: 'Too big: expected string to have <=500 characters.' },
      ]),
    );
    expect(problems).toEqual({ fields: { description: 'Must be at most 100000 characters.', title: 'Too big: expected string to have <=500 characters.' }, general: '' });
  });

  test('when a field is named twice, then its first problem is kept', () => {
    expect(newIssueProblems(problem('validation_failed', [{ path: 'title', message: 'first' }, { path: 'title', message: 'second' }]))).toEqual({ fields: { title: 'First.' }, general: '' });
  });

  test('when the API names the whole body or a field the form does not have, then the form as a whole is told the detail', () => {
    expect(newIssueProblems(problem('validation_failed', [{ path: '(body)', message: 'malformed JSON' }]))).toEqual({ fields: {}, general: 'detail of validation_failed' });
    expect(newIssueProblems(problem('validation_failed', [{ path: 'labels.0', message: 'too long' }]))).toEqual({ fields: {}, general: 'detail of validation_failed' });
  });

  test('when a body path is written with its (body) prefix, then it still finds its field', () => {
    expect(newIssueProblems(problem('validation_failed', [{ path: '(body).queue_id', message: 'required' }]))).toEqual({ fields: { queue: 'Required.' }, general: '' });
  });

  test('when the queue is not writable (403), then the queue field says why and what to do', () => {
    expect(newIssueProblems(problem('forbidden'))).toEqual({ fields: { queue: 'You may not create issues in this queue (it needs the read-write or admin role). Choose another queue.' }, general: '' });
  });

  test('when anything else refuses, then the form tells the API`s detail', () => {
    expect(newIssueProblems(problem('rate_limited'))).toEqual({ fields: {}, general: 'detail of rate_limited' });
    expect(newIssueProblems(problem('validation_failed'))).toEqual({ fields: {}, general: 'detail of validation_failed' });
  });
});
