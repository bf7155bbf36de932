import {
  describeFilters,
  EMPTY_FORM,
  fieldToIds,
  filtersFromForm,
  formFromFilters,
  idsToField,
  NO_IDS,
  queryFromView,
  sameFilters,
  statisticsProblem,
  viewFromQuery,
  type Names,
} from '../app/src/rules/statistics-filters';

const names: Names = {
  queue: (id) => ({ 1: 'OPS', 2: 'WEB' })[id],
  status: (id) => ({ 11: 'OPS Open', 14: 'OPS Done' })[id],
  user: (id) => ({ 5: 'Bea' })[id],
};

describe('id lists in a form', () => {
  test('when a list is absent, empty or holds ids, then the form value tells the three apart', () => {
    expect(idsToField(undefined)).toBe('');
    expect(idsToField([])).toBe('none');
    expect(idsToField([3, 7])).toBe('3,7');
    expect(fieldToIds('')).toBeUndefined();
    expect(fieldToIds('none')).toEqual([]);
    expect(fieldToIds('3, 7,3')).toEqual([3, 7]);
  });

  test('when a value is no list of ids, then it does not filter', () => {
    expect(fieldToIds('abc')).toBeUndefined();
    expect(fieldToIds('0')).toBeUndefined();
    expect(fieldToIds('1,-2')).toBeUndefined();
    expect(fieldToIds('99999999999')).toBeUndefined();
    expect(fieldToIds(Array.from({ length: 101 }, (_, i) => i + 1).join(','))).toBeUndefined();
  });
});

describe('the API body of a form, and back', () => {
  test('when nothing is chosen, then the body is empty: nothing filters', () => {
    expect(filtersFromForm(EMPTY_FORM)).toEqual({});
  });

  test('when every control is set, then each becomes its field, texts trimmed', () => {
    const body = filtersFromForm({ search: ' login ', queues: '1', statuses: '11,14', assignees: '5', category: 'open', priority: 'high', label: ' ui ', mine: true, overdue: true });
    expect(body).toEqual({ search: 'login', queue_ids: [1], status_ids: [11, 14], assignee_ids: [5], category: 'open', priority: 'high', label: 'ui', mine: true, overdue: true });
  });

  test('when blank texts and false flags are in the form, then they are left out, not sent empty', () => {
    expect(filtersFromForm({ ...EMPTY_FORM, search: '   ', label: ' ', mine: false })).toEqual({});
  });

  test('when a saved widget’s filters (defaults filled in) are edited, then they come back unchanged', () => {
    const saved = { queue_ids: [1, 2], status_ids: [], mine: false, overdue: false, priority: null, category: 'done' as const, label: null, search: null };
    const form = formFromFilters(saved);
    expect(form.queues).toBe('1,2');
    expect(form.statuses).toBe('none');
    expect(filtersFromForm(form)).toEqual({ queue_ids: [1, 2], status_ids: [], category: 'done' });
  });

  test('when two filters differ only by defaults, then they are the same; by a queue, they are not', () => {
    expect(sameFilters({ mine: false, overdue: false, label: null }, {})).toBe(true);
    expect(sameFilters({ queue_ids: [1] }, { queue_ids: [2] })).toBe(false);
    expect(sameFilters({ queue_ids: [] }, {})).toBe(false);
  });
});

describe('the statistics page’s address', () => {
  const queues = [
    { id: 1, key: 'OPS' },
    { id: 2, key: 'WEB' },
  ];

  test('when a view is put in the address, then its queues are named by key, and reading it back gives the same view', () => {
    const view = { form: { ...EMPTY_FORM, queues: '2', category: 'progress' as const, label: 'ui kit', mine: true }, group: 'queues' as const };
    const query = queryFromView(view, queues);
    expect(query.toString()).toBe('queue=WEB&category=progress&label=ui+kit&mine=1&group=queues');
    expect(viewFromQuery(`?${query}`, queues)).toEqual(view);
    expect(queryFromView({ form: { ...EMPTY_FORM, queues: '1,2' }, group: 'statuses' }, queues).toString()).toBe('queue=OPS%2CWEB');
    expect(queryFromView({ form: { ...EMPTY_FORM, queues: NO_IDS }, group: 'statuses' }, queues).toString()).toBe('queue=none');
  });

  test('when the address names a queue by key in any case, or by id as older addresses do, then it is that queue', () => {
    expect(viewFromQuery('?queue=ops,Web', queues).form.queues).toBe('1,2');
    expect(viewFromQuery('?queue=2', queues).form.queues).toBe('2');
    expect(viewFromQuery('?queue=none', queues).form.queues).toBe(NO_IDS);
  });

  test('when an id names no queue the caller knows, then it is kept in the address by its number, for the service to refuse', () => {
    expect(queryFromView({ form: { ...EMPTY_FORM, queues: '9' }, group: 'statuses' }, queues).toString()).toBe('queue=9');
    expect(viewFromQuery('?queue=9', queues).form.queues).toBe('9');
  });

  test('when the view is the default one, then the address has no query', () => {
    expect(queryFromView({ form: EMPTY_FORM, group: 'statuses' }, queues).toString()).toBe('');
    expect(viewFromQuery('', queues)).toEqual({ form: EMPTY_FORM, group: 'statuses' });
  });

  test('when the address holds nonsense, then each bad value is dropped and the rest kept', () => {
    const view = viewFromQuery('?queue=abc&category=later&priority=urgent&group=pie&status=4&overdue=yes&label=' + 'x'.repeat(101), queues);
    expect(view).toEqual({ form: { ...EMPTY_FORM, statuses: '4', overdue: true }, group: 'statuses' });
  });
});

describe('filters in words', () => {
  test('when filters are described, then queues, statuses and people are named', () => {
    expect(describeFilters({ queue_ids: [1, 2], status_ids: [11], assignee_ids: [5], priority: 'critical', label: 'ui', search: 'login', overdue: true }, names)).toBe(
      'in OPS or WEB, with status OPS Open, assigned to Bea, of critical priority, labelled “ui”, overdue, matching “login”',
    );
  });

  test('when an id has no name the caller may see, then it is told by its number; an empty list as nothing', () => {
    expect(describeFilters({ queue_ids: [9] }, names)).toBe('in queue 9');
    expect(describeFilters({ queue_ids: [] }, names)).toBe('in no queue');
    expect(describeFilters({ category: 'progress', mine: true }, names)).toBe('with status category In progress, assigned to me');
    expect(describeFilters({}, names)).toBe('');
  });
});

describe('problems with figures, in words', () => {
  test('when a filter names a queue the caller cannot see, then they are told to choose another', () => {
    expect(statisticsProblem({ status: 403, code: 'forbidden', detail: 'x' })).toMatch(/queue you cannot see/);
  });

  test('when the statistics are being rebuilt, then they are told to try again shortly', () => {
    expect(statisticsProblem({ status: 503, code: 'statistics_unavailable', detail: 'x' })).toMatch(/Try again shortly/);
    expect(statisticsProblem({ status: 500, code: 'internal', detail: 'The detail.' })).toBe('The detail.');
  });
});
