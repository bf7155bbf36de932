import {
  applicableFilters,
  filtersFromQuery,
  isFiltered,
  isOverdue,
  NO_FILTERS,
  queryFromFilters,
  searchBody,
  searchSize,
  type IssueFilters,
} from '../app/src/rules/issue-filters';

const QUEUES = [
  { id: 7, key: 'OPS' },
  { id: 9, key: 'WEB' },
];

const EVERY_FILTER: IssueFilters = {
  search: 'login fails',
  queue: 'OPS',
  category: 'progress',
  assignee: 12,
  mine: true,
  overdue: true,
  priority: 'high',
  label: 'front end',
};

describe('the filters in the address', () => {
  test('when no query is given, then no filter is on', () => {
    expect(filtersFromQuery('')).toEqual(NO_FILTERS);
    expect(isFiltered(filtersFromQuery(''))).toBe(false);
  });

  test('when every filter is on, then the query holds each once, in a fixed order, and reads back the same', () => {
    const query = queryFromFilters(EVERY_FILTER);
    expect(query.toString()).toBe('q=login+fails&queue=OPS&category=progress&assignee=12&mine=1&overdue=1&priority=high&label=front+end');
    expect(filtersFromQuery(`?${query}`)).toEqual(EVERY_FILTER);
    expect(isFiltered(EVERY_FILTER)).toBe(true);
  });

  test('when no filter is on, then the query is empty', () => {
    expect(queryFromFilters(NO_FILTERS).toString()).toBe('');
    expect(queryFromFilters({ ...NO_FILTERS, search: '   ', label: ' ' }).toString()).toBe('');
  });

  test('when each filter alone round-trips, then nothing else comes with it', () => {
    const singles: Array<Partial<IssueFilters>> = [
      { search: 'crash' },
      { queue: 'WEB' },
      { category: 'done' },
      { assignee: 3 },
      { mine: true },
      { overdue: true },
      { priority: 'low' },
      { label: 'UI' },
    ];
    for (const single of singles) {
      const filters = { ...NO_FILTERS, ...single };
      expect(filtersFromQuery(queryFromFilters(filters))).toEqual(filters);
      expect([...queryFromFilters(filters).keys()]).toHaveLength(1);
    }
  });

  test('when a text has spaces around it or a key and words are in another case, then they are read trimmed and in their one spelling', () => {
    expect(filtersFromQuery('q=%20crash%20&queue=ops&category=DONE&priority=High&label=%20UI%20')).toEqual({
      ...NO_FILTERS,
      search: 'crash',
      queue: 'OPS',
      category: 'done',
      priority: 'high',
      label: 'UI',
    });
  });

  test('when the address holds values the page could not have written, then each is ignored and the filter is off', () => {
    const bad = new URLSearchParams({
      q: 'x'.repeat(501),
      queue: 'not a key!',
      category: 'closed',
      assignee: '-3',
      mine: 'yes',
      overdue: '0',
      priority: 'urgent',
      label: 'l'.repeat(101),
    });
    expect(filtersFromQuery(bad)).toEqual(NO_FILTERS);
    expect(searchBody(filtersFromQuery(bad), QUEUES)).toEqual({});
  });

  test.each(['0', '1.5', '1e3', 'abc', '99999999999999999', ''])('when the assignee is %p, then it is no user id and is ignored', (given) => {
    expect(filtersFromQuery(`assignee=${given}`).assignee).toBeNull();
  });

  test('when a flag is written as true, then it is on as with 1', () => {
    expect(filtersFromQuery('mine=true&overdue=1')).toMatchObject({ mine: true, overdue: true });
  });

  test('when a parameter is given twice, then the first one counts', () => {
    expect(filtersFromQuery('priority=low&priority=high').priority).toBe('low');
  });

  test('when the query holds parameters of no filter, then they are ignored and dropped on the way back', () => {
    const filters = filtersFromQuery('utm_source=mail&priority=normal');
    expect(filters).toEqual({ ...NO_FILTERS, priority: 'normal' });
    expect(queryFromFilters(filters).toString()).toBe('priority=normal');
  });
});

describe('the search the filters ask for', () => {
  test('when no filter is on, then the body is empty: every readable issue', () => {
    expect(searchBody(NO_FILTERS, QUEUES)).toEqual({});
  });

  test('when every filter is on, then the body names the queue by its id and sends only what filters', () => {
    expect(searchBody(EVERY_FILTER, QUEUES)).toEqual({
      search: 'login fails',
      queue_ids: [7],
      category: 'progress',
      assignee_ids: [12],
      mine: true,
      overdue: true,
      priority: 'high',
      label: 'front end',
    });
  });

  test('when the queue is not one the person can see, then no queue is sent (the API would refuse it)', () => {
    expect(searchBody({ ...NO_FILTERS, queue: 'HR' }, QUEUES)).toEqual({});
  });

  test('when off flags and blank texts are given, then they are not sent', () => {
    expect(searchBody({ ...NO_FILTERS, search: '  ', label: '', mine: false, overdue: false }, QUEUES)).toEqual({});
  });
});

describe('the filters a person can use', () => {
  test('when the queue and the assignee are known, then nothing is ignored', () => {
    expect(applicableFilters(EVERY_FILTER, QUEUES, [12])).toEqual({ filters: EVERY_FILTER, ignored: [] });
  });

  test('when the queue is hidden and the user unknown, then both are dropped and said to be', () => {
    const { filters, ignored } = applicableFilters({ ...EVERY_FILTER, queue: 'HR', assignee: 404 }, QUEUES, [12]);
    expect(filters).toEqual({ ...EVERY_FILTER, queue: null, assignee: null });
    expect(ignored).toEqual(['queue', 'assignee']);
  });

  test('when the lists are not there yet, then nothing is dropped', () => {
    expect(applicableFilters({ ...EVERY_FILTER, queue: 'HR' }, null, null)).toEqual({ filters: { ...EVERY_FILTER, queue: 'HR' }, ignored: [] });
  });
});

describe('an issue overdue', () => {
  const now = new Date('2026-03-10T23:30:00Z');
  const issue = (due_date: string | null, category: 'open' | 'progress' | 'done' = 'open') => ({ due_date, status: { category } });

  test('when due before today (UTC) and not done, then it is overdue', () => {
    expect(isOverdue(issue('2026-03-09'), now)).toBe(true);
  });

  test('when due today, later, never, or done, then it is not', () => {
    expect(isOverdue(issue('2026-03-10'), now)).toBe(false);
    expect(isOverdue(issue('2026-04-01'), now)).toBe(false);
    expect(isOverdue(issue(null), now)).toBe(false);
    expect(isOverdue(issue('2026-03-01', 'done'), now)).toBe(false);
  });
});

describe('the size of a search answer', () => {
  const headers = (values: Record<string, string>) => new Headers(values);

  test('when the headers say how many matched and that the cap cut them, then both are read', () => {
    expect(searchSize(headers({ 'X-Total-Count': '2000', 'X-Truncated': 'true' }), 2000)).toEqual({ total: 2000, truncated: true });
  });

  test('when only the deprecated header is there, then it is read', () => {
    expect(searchSize(headers({ 'Search-Truncated': 'true' }), 5)).toEqual({ total: 5, truncated: true });
  });

  test('when the count is missing or makes no sense, then the number shown counts', () => {
    expect(searchSize(headers({}), 3)).toEqual({ total: 3, truncated: false });
    expect(searchSize(headers({ 'X-Total-Count': 'many' }), 3)).toEqual({ total: 3, truncated: false });
    expect(searchSize(headers({ 'X-Total-Count': '1' }), 3)).toEqual({ total: 3, truncated: false });
  });
});
