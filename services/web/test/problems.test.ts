import type { Problem } from '../app/src/http';
import { pathField, placeProblem } from '../app/src/rules/problems';

const refused = (errors: Problem['errors'], code = 'validation_failed'): Problem => ({ status: 422, code, detail: `detail of ${code}`, errors });

describe('a refusal placed on a form', () => {
  test('when a path is bare, under (body), or reaches into a property, then its first segment names the field', () => {
    expect(['name', '(body).name', '(body)name', 'name.first', 'name[0]', '(body).filters.queue_id[0]'].map(pathField)).toEqual(['name', 'name', 'name', 'name', 'name', 'filters']);
    expect(pathField('(body)')).toBe('');
  });

  test('when errors name fields of the form in any of these forms, then each field gets the first words about it', () => {
    const problem = refused([
      { path: '(body).name', message: 'too long' },
      { path: 'name', message: 'second' },
      { path: 'description[2]', message: 'not text' },
    ]);
    expect(placeProblem(problem, ['name', 'description'] as const)).toEqual({ fields: { name: 'Too long.', description: 'Not text.' }, general: '' });
  });

  test('when the form has its own words for a field, or the body names it otherwise, then those are used', () => {
    const problem = refused([
      { path: '(body).queue_id', message: 'required' },
      { path: 'title', message: 'required' },
    ]);
    expect(placeProblem(problem, ['queue', 'title'] as const, { fieldOfPath: { queue_id: 'queue' }, fieldWords: { title: 'Give it a title.' } })).toEqual({
      fields: { queue: 'Required.', title: 'Give it a title.' },
      general: '',
    });
  });

  test('when an error is about the whole body (such as a limit reached), then the problem`s detail is said for the form, not on a field', () => {
    const problem = refused([{ path: '(body)', message: 'at most 100' }]);
    expect(placeProblem(problem, ['name'] as const, { fieldWords: { name: 'Give it a name.' } })).toEqual({ fields: {}, general: 'detail of validation_failed' });
  });

  test('when one error names a field and another none, then both are told', () => {
    const problem = refused([
      { path: 'name', message: 'too long' },
      { path: 'labels.0', message: 'bad' },
    ]);
    expect(placeProblem(problem, ['name'] as const)).toEqual({ fields: { name: 'Too long.' }, general: 'detail of validation_failed' });
  });

  test('when the refusal is not a validation, then its detail is for the form, unless its code is known to concern a field', () => {
    expect(placeProblem(refused(undefined, 'rate_limited'), ['name'] as const)).toEqual({ fields: {}, general: 'detail of rate_limited' });
    expect(placeProblem(refused(undefined, 'name_taken'), ['name'] as const, { byCode: { name_taken: { field: 'name', words: 'Taken.' } } })).toEqual({
      fields: { name: 'Taken.' },
      general: '',
    });
  });
});
