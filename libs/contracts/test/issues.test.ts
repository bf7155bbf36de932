import { CommentCreate, Filters, IssueCreate, IssueUpdate, QueueCreate, QueueSettings, WorklogCreate } from '../src';

const pathOf = (result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[] }> } }) =>
  result.error!.issues.map((i) => i.path.join('.'));

describe('QueueCreate', () => {
  test.each(['OK', 'ops', 'Ops_2', 'A_________12'])('when the key is %j, then it is accepted', (key) => {
    expect(QueueCreate.parse({ key, name: 'Q' })).toEqual({ key, name: 'Q', description: '' });
  });

  test.each(['A', 'ABCDEFGHIJKLM', '1AB', '_AB', 'AB-C', 'AB C', 'ÄB'])('when the key is %j, then it is rejected', (key) => {
    expect(pathOf(QueueCreate.safeParse({ key, name: 'Q' }))).toContain('key');
  });

  test('names are 1 to 100 characters and strings never hold NUL', () => {
    expect(QueueCreate.safeParse({ key: 'OK', name: '' }).success).toBe(false);
    expect(QueueCreate.safeParse({ key: 'OK', name: 'x'.repeat(101) }).success).toBe(false);
    expect(pathOf(QueueCreate.safeParse({ key: 'OK', name: 'a\u0000b' }))).toEqual(['name']);
    expect(QueueSettings.safeParse({}).success).toBe(true);
    expect(pathOf(QueueSettings.safeParse({ key: 'NEW' }))).toEqual(['']);
  });
});

describe('IssueCreate', () => {
  test('when only queue_id and title are given, then every default is filled in', () => {
    expect(IssueCreate.parse({ queue_id: 1, title: 'T' })).toEqual({
      queue_id: 1,
      title: 'T',
      description: '',
      assignee_id: null,
      parent_id: null,
      priority: 'normal',
      type: 'task',
      labels: [],
      due_date: null,
      estimate_minutes: 0,
    });
  });

  test.each([
    ['queue_id', { queue_id: 0 }],
    ['queue_id', { queue_id: 2_147_483_648 }],
    ['title', { title: '' }],
    ['title', { title: 't'.repeat(501) }],
    ['description', { description: 'd'.repeat(100_001) }],
    ['labels', { labels: Array.from({ length: 51 }, () => 'l') }],
    ['labels.0', { labels: [''] }],
    ['type', { type: 't'.repeat(51) }],
    ['estimate_minutes', { estimate_minutes: -1 }],
    ['estimate_minutes', { estimate_minutes: 1_000_001 }],
    ['due_date', { due_date: '2023-02-29' }],
    ['due_date', { due_date: '0000-01-01' }],
    ['priority', { priority: 'urgent' }],
    ['', { status_id: 1 }],
  ])('when %j is out of bounds or unknown, then it is rejected there', (path, fields) => {
    expect(pathOf(IssueCreate.safeParse({ queue_id: 1, title: 'T', ...fields }))).toContain(path);
  });
});

describe('IssueUpdate', () => {
  test('absent fields stay absent and null is kept for the clearable ones', () => {
    expect(IssueUpdate.parse({})).toEqual({});
    expect(IssueUpdate.parse({ assignee_id: null, parent_id: null, due_date: null })).toEqual({ assignee_id: null, parent_id: null, due_date: null });
  });

  test.each(['title', 'description', 'status_id', 'position', 'priority', 'type', 'labels', 'estimate_minutes', 'version'])(
    'when %s is null, then it is rejected',
    (field) => expect(pathOf(IssueUpdate.safeParse({ [field]: null }))).toEqual([field]),
  );

  test('position is any finite number within ±1e15', () => {
    expect(IssueUpdate.safeParse({ position: -0.125 }).success).toBe(true);
    expect(IssueUpdate.safeParse({ position: 1e16 }).success).toBe(false);
  });
});

describe('comments, worklogs and filters', () => {
  test('a comment body is 1 to 50000 characters', () => {
    expect(CommentCreate.safeParse({ body: 'x' }).success).toBe(true);
    expect(CommentCreate.safeParse({ body: '' }).success).toBe(false);
    expect(CommentCreate.safeParse({ body: 'x'.repeat(50_001) }).success).toBe(false);
  });

  test('a worklog is 1 to 1440 whole minutes with an optional description', () => {
    expect(WorklogCreate.parse({ minutes: 1440 })).toEqual({ minutes: 1440, description: '' });
    for (const minutes of [0, 1441, 2.5]) expect(WorklogCreate.safeParse({ minutes }).success).toBe(false);
  });

  test('filters default mine and overdue to false and bound every list', () => {
    expect(Filters.parse({})).toEqual({ mine: false, overdue: false });
    const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
    for (const list of ['queue_ids', 'status_ids', 'assignee_ids']) {
      expect(Filters.safeParse({ [list]: ids(100) }).success).toBe(true);
      expect(pathOf(Filters.safeParse({ [list]: ids(101) }))).toEqual([list]);
    }
    expect(Filters.safeParse({ search: null, priority: null, category: null, label: null }).success).toBe(true);
    expect(pathOf(Filters.safeParse({ category: 'closed', sort: 'x' })).sort()).toEqual(['', 'category']);
  });
});
