import { draftOf, type EditableIssue } from '../app/src/rules/issue-edit';
import { decideLive, isNewer, isNewItem, issueChangeInWords, listInWords } from '../app/src/rules/live-issue';

const issue = (extra: Partial<EditableIssue> = {}): EditableIssue => ({
  title: 'Fix the login form',
  description: 'It is off.',
  type: 'task',
  assignee_id: null,
  priority: 'normal',
  parent_id: null,
  labels: [],
  due_date: null,
  estimate_minutes: 0,
  ...extra,
});

describe('whether an event is news to the page', () => {
  test('when its version is newer than shown, then yes; the same (the person`s own write coming back) or older (reordered), no', () => {
    expect(isNewer(4, 3)).toBe(true);
    expect(isNewer(3, 3)).toBe(false);
    expect(isNewer(2, 3)).toBe(false);
  });

  test('when a comment is already listed (the person`s own, or told twice), then it is not new', () => {
    expect(isNewItem([{ id: 4 }, { id: 9 }], 9)).toBe(false);
    expect(isNewItem([{ id: 4 }, { id: 9 }], 10)).toBe(true);
  });
});

describe('a newer copy of the issue against the form', () => {
  const read = draftOf(issue());

  test('when the person is not editing, then the copy is taken and the form shows it', () => {
    const fresh = draftOf(issue({ title: 'Fix the sign-in form', priority: 'high' }));
    expect(decideLive(read, read, fresh)).toEqual({ kind: 'take', draft: fresh, theirs: ['title', 'priority'] });
  });

  test('when the person edits other fields than the change, then the copy is taken and what they typed stays', () => {
    const draft = { ...read, description: 'Typed, not saved.' };
    const fresh = draftOf(issue({ title: 'Fix the sign-in form' }));
    expect(decideLive(read, draft, fresh)).toEqual({ kind: 'take', draft: { ...fresh, description: 'Typed, not saved.' }, theirs: ['title'] });
  });

  test('when the person has unsaved edits of a field the change set otherwise, then it is a conflict naming those fields, and nothing is taken', () => {
    const draft = { ...read, title: 'Ada`s title', labels: 'ui' };
    const fresh = draftOf(issue({ title: 'Bob`s title', labels: ['ui'], priority: 'high' }));
    expect(decideLive(read, draft, fresh)).toEqual({ kind: 'conflict', fields: ['title'] });
  });

  test('when both typed the same value, then there is nothing to tell: the copy is taken', () => {
    const draft = { ...read, title: 'Same title' };
    const fresh = draftOf(issue({ title: 'Same title' }));
    expect(decideLive(read, draft, fresh)).toEqual({ kind: 'take', draft: fresh, theirs: ['title'] });
  });

  test('when only the status or the lists changed (no field of the form), then the copy is taken as it is, with the edits kept', () => {
    const draft = { ...read, title: 'Ada`s title' };
    expect(decideLive(read, draft, read)).toEqual({ kind: 'take', draft, theirs: [] });
  });
});

describe('a change taken, in words', () => {
  test('when fields and the status changed, then the words name the status first, then the fields', () => {
    expect(issueChangeInWords('Bob Builder', ['title', 'priority'], 'Done')).toBe('Bob Builder changed the status to Done, Title and Priority.');
    expect(issueChangeInWords('Bob Builder', ['title'], null)).toBe('Bob Builder changed Title.');
  });

  test('when nothing the page shows changed, then nothing is said', () => {
    expect(issueChangeInWords('Bob Builder', [], null)).toBeNull();
  });

  test('lists read as a sentence', () => {
    expect(listInWords([])).toBe('');
    expect(listInWords(['A'])).toBe('A');
    expect(listInWords(['A', 'B', 'C'])).toBe('A, B and C');
  });
});
