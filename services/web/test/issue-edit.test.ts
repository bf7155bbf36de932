import {
  changedFields,
  draftOf,
  draftProblems,
  fieldOfPath,
  isStaleEdit,
  parseLabels,
  rebase,
  updateBody,
  withFreshLists,
  type Draft,
  type EditableIssue,
} from '../app/src/rules/issue-edit';

const issue = (changes: Partial<EditableIssue> = {}): EditableIssue => ({
  title: 'Fix the login form',
  description: 'It fails in Firefox.',
  type: 'bug',
  assignee_id: 3,
  priority: 'normal',
  parent_id: null,
  labels: ['frontend', 'urgent'],
  due_date: null,
  estimate_minutes: 90,
  ...changes,
});

const read = draftOf(issue());
const typed = (changes: Partial<Draft>): Draft => ({ ...read, ...changes });

describe('the form of an issue', () => {
  test('when an issue is read, then the form holds its values as text', () => {
    expect(read).toEqual({
      title: 'Fix the login form',
      description: 'It fails in Firefox.',
      type: 'bug',
      assignee: '3',
      priority: 'normal',
      parent: '',
      labels: 'frontend, urgent',
      dueDate: '',
      estimate: '90',
    });
    expect(draftOf(issue({ assignee_id: null, due_date: '2026-12-31', labels: [] }))).toMatchObject({ assignee: '', dueDate: '2026-12-31', labels: '' });
  });

  test('when the issue has a parent, then the form holds its key when the page knows it, else its id', () => {
    expect(draftOf(issue({ parent_id: 7 }), 'OPS-7').parent).toBe('OPS-7');
    expect(draftOf(issue({ parent_id: 7 })).parent).toBe('#7');
  });

  test('when labels are typed, then blanks are dropped, spaces trimmed, and each is kept once, first first', () => {
    expect(parseLabels(' ui , backend,,ui , UI ')).toEqual(['ui', 'backend', 'UI']);
    expect(parseLabels('   ')).toEqual([]);
  });
});

describe('which fields the person changed', () => {
  test('when nothing was typed, then no field is changed', () => {
    expect(changedFields(read, typed({}))).toEqual([]);
  });

  test('when only spacing differs (labels, outer spaces of the title, the estimate), then nothing is changed', () => {
    expect(changedFields(read, typed({ labels: 'frontend,urgent ', title: '  Fix the login form ', estimate: ' 90' }))).toEqual([]);
  });

  test('when fields are changed, then they are named in the form order', () => {
    expect(changedFields(read, typed({ estimate: '120', title: 'Fix the sign-in form', labels: 'urgent, frontend' }))).toEqual(['title', 'labels', 'estimate']);
  });

  test('when the description gains outer spaces, then that is a change (its text is kept as typed)', () => {
    expect(changedFields(read, typed({ description: 'It fails in Firefox.\n' }))).toEqual(['description']);
  });
});

describe('the update sent', () => {
  test('when nothing changed, then there is nothing to send', () => {
    expect(updateBody(4, read, typed({ labels: 'frontend , urgent' }))).toBeNull();
  });

  test('when fields changed, then only those are sent, typed as the API takes them, with the version read', () => {
    expect(updateBody(4, read, typed({ title: ' Fix the sign-in form ', priority: 'high', dueDate: '2026-12-31', estimate: '120', labels: 'ui, ui, backend' }))).toEqual({
      version: 4,
      title: 'Fix the sign-in form',
      priority: 'high',
      labels: ['ui', 'backend'],
      due_date: '2026-12-31',
      estimate_minutes: 120,
    });
  });

  test('when the assignee and the due date are emptied, then they are sent as null (cleared)', () => {
    const dated = draftOf(issue({ due_date: '2026-01-31' }));
    expect(updateBody(2, dated, { ...dated, assignee: '', dueDate: '' })).toEqual({ version: 2, assignee_id: null, due_date: null });
  });

  test('when the type is changed, then it is sent trimmed', () => {
    expect(updateBody(3, read, typed({ type: ' feature ' }))).toEqual({ version: 3, type: 'feature' });
  });

  test('when a parent key is given, then the id it was resolved to is sent; emptied, the parent is cleared (null); the key in other letters is no change', () => {
    expect(updateBody(3, read, typed({ parent: 'OPS-7' }), 41)).toEqual({ version: 3, parent_id: 41 });
    const child = draftOf(issue({ parent_id: 41 }), 'OPS-7');
    expect(updateBody(4, child, { ...child, parent: ' ' }, null)).toEqual({ version: 4, parent_id: null });
    expect(updateBody(4, child, { ...child, parent: 'ops-7' })).toBeNull();
    expect(() => updateBody(3, read, typed({ parent: 'OPS-7' }))).toThrow(/not resolved/);
  });

  test('when another person is chosen, then their id is sent as a number', () => {
    expect(updateBody(1, read, typed({ assignee: '12' }))).toEqual({ version: 1, assignee_id: 12 });
  });
});

describe('problems found before saving', () => {
  test('when the fields are fine, then there is no problem', () => {
    expect(draftProblems(read, typed({ title: 'New', estimate: '0', dueDate: '2028-02-29' }))).toEqual({});
  });

  test('when the title is emptied or too long, then it says so', () => {
    expect(draftProblems(read, typed({ title: '   ' }))).toEqual({ title: 'Give the issue a title.' });
    expect(draftProblems(read, typed({ title: 'x'.repeat(501) })).title).toMatch(/500 characters/);
  });

  test('when the type is emptied or too long, then it says so', () => {
    expect(draftProblems(read, typed({ type: '  ' }))).toEqual({ type: 'Give the issue a type, such as task or bug.' });
    expect(draftProblems(read, typed({ type: 'x'.repeat(51) })).type).toMatch(/50 characters/);
  });

  test('when the estimate is not whole minutes from 0, then it says so', () => {
    for (const estimate of ['', '-5', '1.5', 'ten', '1000001']) {
      expect({ estimate, problem: draftProblems(read, typed({ estimate })).estimate }).toEqual({ estimate, problem: 'Give the estimate in whole minutes, from 0 to 1,000,000.' });
    }
  });

  test('when the due date is no calendar date, then it says so; empty is no date', () => {
    for (const dueDate of ['2026-02-30', '2026-13-01', '31.12.2026', '0000-01-01']) {
      expect({ dueDate, problem: draftProblems(read, typed({ dueDate })).dueDate }).toEqual({ dueDate, problem: expect.stringMatching(/due date as a date/) });
    }
    const dated = draftOf(issue({ due_date: '2026-01-31' }));
    expect(draftProblems(dated, { ...dated, dueDate: '' })).toEqual({});
  });

  test('when there are too many labels or one is too long, then it says so', () => {
    const many = Array.from({ length: 51 }, (_, i) => `l${i}`).join(',');
    expect(draftProblems(read, typed({ labels: many })).labels).toMatch(/at most 50 labels/);
    expect(draftProblems(read, typed({ labels: `ok, ${'y'.repeat(101)}` })).labels).toMatch(/100 characters/);
  });

  test('when a field the person did not touch is odd already, then it is not theirs to fix', () => {
    const odd = { ...read, estimate: '' };
    expect(draftProblems(odd, { ...odd, title: 'New title' })).toEqual({});
  });
});

describe('a stale edit carried onto the fresh issue', () => {
  test('when someone else changed other fields, then theirs are taken and the person’s edits kept', () => {
    const fresh = draftOf(issue({ priority: 'critical', due_date: '2026-12-01' }));
    const rebased = rebase(read, typed({ title: 'My better title' }), fresh);
    expect(rebased).toEqual({
      draft: { ...fresh, title: 'My better title' },
      theirs: ['priority', 'dueDate'],
      mine: ['title'],
      clashes: [],
    });
  });

  test('when both changed the same field differently, then the person’s value is kept and it is a clash', () => {
    const fresh = draftOf(issue({ title: 'Their title', estimate_minutes: 30 }));
    const rebased = rebase(read, typed({ title: 'My title' }), fresh);
    expect(rebased.draft.title).toBe('My title');
    expect(rebased.draft.estimate).toBe('30');
    expect(rebased.clashes).toEqual(['title']);
    expect(updateBody(7, fresh, rebased.draft)).toEqual({ version: 7, title: 'My title' });
  });

  test('when both made the same change, then there is nothing left to save and no clash', () => {
    const fresh = draftOf(issue({ priority: 'high' }));
    const rebased = rebase(read, typed({ priority: 'high' }), fresh);
    expect(rebased).toMatchObject({ theirs: ['priority'], mine: [], clashes: [] });
    expect(updateBody(2, fresh, rebased.draft)).toBeNull();
  });

  test('when the person only reformatted a field, then the fresh value wins (nothing of theirs was changed)', () => {
    const fresh = draftOf(issue({ labels: ['backend'] }));
    const rebased = rebase(read, typed({ labels: 'frontend,urgent' }), fresh);
    expect(rebased.draft.labels).toBe('backend');
    expect(rebased.mine).toEqual([]);
  });
});

describe('refusals', () => {
  test('when a save is refused for a stale version or a stale tag, then it is a stale edit; other refusals are not', () => {
    expect(isStaleEdit({ status: 409, code: 'version_conflict' })).toBe(true);
    expect(isStaleEdit({ status: 412, code: 'precondition_failed' })).toBe(true);
    expect(isStaleEdit({ status: 403, code: 'forbidden' })).toBe(false);
    expect(isStaleEdit({ status: 422, code: 'validation_failed' })).toBe(false);
  });

  test('when a 422 names a body path, then the form field it belongs to is found', () => {
    expect(fieldOfPath('labels.3')).toBe('labels');
    expect(fieldOfPath('assignee_id')).toBe('assignee');
    expect(fieldOfPath('estimate_minutes')).toBe('estimate');
    expect(fieldOfPath('due_date')).toBe('dueDate');
    expect(fieldOfPath('parent_id')).toBe('parent');
    expect(fieldOfPath('type')).toBe('type');
    expect(fieldOfPath('(body)')).toBeNull();
    expect(fieldOfPath('version')).toBeNull();
  });
});

describe('reading the issue again after a comment or a worklog', () => {
  const held = { version: 3, title: 'Mine as read', comments: ['a'], comments_total: 1 };

  test('when the version is the one read, then everything fresh is taken', () => {
    const fresh = { version: 3, title: 'Mine as read', comments: ['a', 'b'], comments_total: 2 };
    expect(withFreshLists(held, fresh, ['comments', 'comments_total'])).toEqual({ issue: fresh, newerVersion: false });
  });

  test('when someone changed the issue meanwhile, then only the lists are taken, the fields and version stay as read, and it says so', () => {
    const fresh = { version: 4, title: 'Their title', comments: ['a', 'b'], comments_total: 2 };
    expect(withFreshLists(held, fresh, ['comments', 'comments_total'])).toEqual({
      issue: { version: 3, title: 'Mine as read', comments: ['a', 'b'], comments_total: 2 },
      newerVersion: true,
    });
  });
});
