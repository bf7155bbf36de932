import {
  dashboardIdOf,
  draftOf,
  inputOf,
  isChanged,
  nameProblem,
  saveProblem,
  staleness,
  titleProblem,
  unsavedWidgets,
  type Dashboard,
  type Draft,
} from '../app/src/rules/dashboard-draft';

/** A dashboard as GET /api/v1/dashboards lists it: widgets with their defaults filled in. */
const saved: Pick<Dashboard, 'name' | 'widgets' | 'updated_at'> = {
  name: 'Release',
  updated_at: '2026-05-01T10:00:00.000Z',
  widgets: [
    { type: 'statuses', title: 'Open work', filters: { queue_ids: [1], mine: false, overdue: false, priority: null } },
    { type: 'queues', title: '', filters: { mine: false, overdue: false } },
  ],
};

describe('a draft of a dashboard', () => {
  test('when a dashboard is read, then each widget gets a stable key of its saved place and normalised filters', () => {
    expect(draftOf(saved)).toEqual({
      name: 'Release',
      widgets: [
        { key: 'saved-0', type: 'statuses', title: 'Open work', filters: { queue_ids: [1] } },
        { key: 'saved-1', type: 'queues', title: '', filters: {} },
      ],
    });
  });

  test('when a draft is sent, then names and titles are trimmed and keys stay in the page', () => {
    const draft: Draft = { name: '  Release 2 ', widgets: [{ key: 'new-1', type: 'time', title: ' Hours ', filters: { label: ' ui ', mine: false } }] };
    expect(inputOf(draft)).toEqual({ name: 'Release 2', widgets: [{ type: 'time', title: 'Hours', filters: { label: 'ui' } }] });
  });

  test('when nothing was changed, then the draft is not changed and no widget is unsaved', () => {
    const draft = draftOf(saved);
    expect(isChanged(saved, draft)).toBe(false);
    expect(unsavedWidgets(saved, draft).size).toBe(0);
  });

  test('when the name alone changes, then the draft is changed but every widget is saved', () => {
    const draft = { ...draftOf(saved), name: 'Release 2' };
    expect(isChanged(saved, draft)).toBe(true);
    expect(unsavedWidgets(saved, draft).size).toBe(0);
  });

  test('when a widget is edited and another added, then those two are unsaved', () => {
    const draft = draftOf(saved);
    draft.widgets[1] = { ...draft.widgets[1]!, filters: { category: 'open' } };
    draft.widgets.push({ key: 'new-1', type: 'assignees', title: '', filters: {} });
    expect(isChanged(saved, draft)).toBe(true);
    expect([...unsavedWidgets(saved, draft)]).toEqual(['saved-1', 'new-1']);
  });

  test('when a widget is removed, then the draft is changed and the rest keep their saved state', () => {
    const draft = draftOf(saved);
    draft.widgets.splice(0, 1);
    expect(isChanged(saved, draft)).toBe(true);
    expect(unsavedWidgets(saved, draft).size).toBe(0);
  });
});

describe('names and titles', () => {
  test('when a name is blank or too long, then it is told in words; a good one passes', () => {
    expect(nameProblem('  ')).toBe('Give the dashboard a name.');
    expect(nameProblem('x'.repeat(501))).toBe('A dashboard name has at most 500 characters.');
    expect(nameProblem(' Release ')).toBe('');
  });

  test('when a widget title is empty it is fine; over 200 characters it is not', () => {
    expect(titleProblem('')).toBe('');
    expect(titleProblem('x'.repeat(201))).toBe('A widget title has at most 200 characters.');
  });
});

describe('a save in between', () => {
  test('when the dashboard was saved again since it was read, then it is changed; gone when no longer listed', () => {
    expect(staleness(saved.updated_at, { updated_at: saved.updated_at })).toBe('same');
    expect(staleness(saved.updated_at, { updated_at: '2026-05-01T10:05:00.000Z' })).toBe('changed');
    expect(staleness(saved.updated_at, undefined)).toBe('gone');
  });
});

describe('a refused save, in words', () => {
  test('when someone else’s dashboard or a hidden queue is refused, then the owner rule is told', () => {
    expect(saveProblem({ status: 403, code: 'forbidden', detail: 'Only the owner…' })).toMatch(/only its owner may change it/);
  });

  test('when the dashboard is gone, then that is told; a validation names the first field', () => {
    expect(saveProblem({ status: 404, code: 'not_found', detail: '' })).toMatch(/no longer exists/);
    expect(saveProblem({ status: 422, code: 'validation_failed', detail: 'd', errors: [{ path: 'name', message: 'too long' }] })).toBe(
      'This dashboard could not be saved: name: too long.',
    );
  });
});

describe('the id in the address', () => {
  test('when the path holds a positive integer, then it is the id; anything else names no dashboard', () => {
    expect(dashboardIdOf('12')).toBe(12);
    expect(dashboardIdOf('0')).toBeNull();
    expect(dashboardIdOf('012')).toBeNull();
    expect(dashboardIdOf('abc')).toBeNull();
    expect(dashboardIdOf('2147483648')).toBeNull();
  });
});
