import {
  describeChange,
  hiddenCount,
  historyView,
  memberRows,
  namesOf,
  nextHistoryPage,
  ROLE_CHOICES,
  userChoices,
  withEarlierPage,
  type QueueMemberLike,
} from '../app/src/rules/queue-permissions';

const member = (over: Partial<QueueMemberLike> & Pick<QueueMemberLike, 'user_id' | 'name'>): QueueMemberLike => ({
  active: true,
  workspace_role: 'member',
  role: null,
  role_source: null,
  explicit_role: null,
  inherited_role: null,
  ...over,
});

describe('who has access to a queue', () => {
  test('when members have explicit, inherited or no roles, then the rows are those with access, by name, each saying where the role comes from', () => {
    const rows = memberRows([
      member({ user_id: 3, name: 'zoe', role: 'read-only', role_source: 'explicit', explicit_role: 'read-only' }),
      member({ user_id: 1, name: 'Ada', workspace_role: 'admin', role: 'admin', role_source: 'inherited', inherited_role: 'admin' }),
      member({ user_id: 4, name: 'Nobody' }),
      member({ user_id: 2, name: 'Bob', workspace_role: 'admin', role: 'admin', role_source: 'inherited', explicit_role: 'read-write', inherited_role: 'admin', active: false }),
    ]);
    expect(rows).toEqual([
      { userId: 1, name: 'Ada', active: true, effective: 'admin', explicit: null, inherited: true, source: 'Workspace admin, so admin of every queue' },
      {
        userId: 2,
        name: 'Bob',
        active: false,
        effective: 'admin',
        explicit: 'read-write',
        inherited: true,
        source: 'Workspace admin, so admin of every queue; also granted Read and write here',
      },
      { userId: 3, name: 'zoe', active: true, effective: 'read-only', explicit: 'read-only', inherited: false, source: 'Granted on this queue' },
    ]);
  });
});

describe('whom a role can be granted to', () => {
  test('when people are listed, then the active ones come by name, and a shared name is told apart by email', () => {
    const choices = userChoices([
      { id: 5, name: 'Sam Lee', email: 'sam2@example.com', active: true },
      { id: 2, name: 'Bob', email: 'bob@example.com', active: true },
      { id: 3, name: 'Gone', email: 'gone@example.com', active: false },
      { id: 4, name: 'sam lee', email: null, active: true },
    ]);
    expect(choices).toEqual([
      { value: 2, label: 'Bob' },
      { value: 4, label: 'sam lee (user 4)' },
      { value: 5, label: 'Sam Lee (sam2@example.com)' },
    ]);
  });
});

describe('a change in the history, in words', () => {
  const nameOf = namesOf([
    { id: 1, name: 'Ada' },
    { id: 2, name: 'Bob' },
  ]);
  const at = '2025-01-01T00:00:00Z';

  test('when a role was granted, changed or revoked, then it says which roles, whose, and by whom', () => {
    expect(describeChange({ user_id: 2, from: null, to: 'read-only', actor_id: 1, at }, nameOf)).toEqual({ person: 'Bob', change: 'Granted Read only', by: 'Ada' });
    expect(describeChange({ user_id: 2, from: 'read-only', to: 'admin', actor_id: 1, at }, nameOf)).toEqual({ person: 'Bob', change: 'Changed from Read only to Admin', by: 'Ada' });
    expect(describeChange({ user_id: 2, from: 'read-write', to: null, actor_id: 9, at }, nameOf)).toEqual({ person: 'Bob', change: 'Revoked Read and write', by: 'User 9' });
  });
});

describe('the history`s pages', () => {
  const changes = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

  test('when every change is embedded, then nothing is hidden and no page is asked for', () => {
    const view = historyView(changes(1, 3), 3);
    expect(hiddenCount(view)).toBe(0);
    expect(nextHistoryPage(view)).toBeNull();
  });

  test('when 120 changes exist and the newest 50 are embedded, then pages of the 70 before them are asked for, never overlapping the newest', () => {
    let view = historyView(changes(71, 120), 120);
    expect(hiddenCount(view)).toBe(70);
    expect(nextHistoryPage(view)).toEqual({ after_id: 0, limit: 50 });
    view = withEarlierPage(view, { items: changes(1, 50), next_after_id: 500 });
    expect(hiddenCount(view)).toBe(20);
    expect(nextHistoryPage(view)).toEqual({ after_id: 500, limit: 20 });
    view = withEarlierPage(view, { items: changes(51, 70), next_after_id: 520 });
    expect(hiddenCount(view)).toBe(0);
    expect(nextHistoryPage(view)).toBeNull();
    expect([...view.earlier, ...view.newest]).toEqual(changes(1, 120));
  });

  test('when a page is longer than what is hidden, then only the hidden part is kept', () => {
    const view = withEarlierPage(historyView(changes(6, 10), 10), { items: changes(1, 8), next_after_id: 8 });
    expect([...view.earlier, ...view.newest]).toEqual(changes(1, 10));
  });

  test('when the last page comes before the count is reached, then the gap closes', () => {
    const view = withEarlierPage(historyView(changes(6, 10), 12), { items: changes(1, 5), next_after_id: null });
    expect(hiddenCount(view)).toBe(0);
    expect(nextHistoryPage(view)).toBeNull();
  });
});

describe('the roles a select offers', () => {
  test('when a role is chosen, then the choices are the three roles lowest first, each in words', () => {
    expect(ROLE_CHOICES).toEqual([
      { value: 'read-only', label: 'Read only' },
      { value: 'read-write', label: 'Read and write' },
      { value: 'admin', label: 'Admin' },
    ]);
  });
});
