import type { Schemas } from '@tracker/client';
import { describeChange, type Names } from '../app/src/rules/issue-history';

const names: Names = {
  status: (id) => ({ 1: 'Open', 2: 'In progress' })[id] ?? `status #${id}`,
  user: (id) => ({ 1: 'Ada', 2: 'Bob' })[id] ?? `user #${id}`,
  date: (iso) => `date ${iso}`,
};

const entry = (field: Schemas['HistoryEntry']['field'], from: Schemas['HistoryEntry']['from'], to: Schemas['HistoryEntry']['to'], cut = false): Schemas['HistoryEntry'] => ({
  field,
  from,
  to,
  from_truncated: false,
  to_truncated: cut,
  actor_id: 1,
  at: '2026-11-02T09:10:00.000Z',
});

describe('history in words', () => {
  test('when the issue was created, then it says so', () => {
    expect(describeChange(entry('created', null, null), names)).toBe('created the issue');
  });

  test('when a field changed from one value to another, then both are named in words', () => {
    expect(describeChange(entry('title', 'Old', 'New'), names)).toBe('changed Title from “Old” to “New”');
    expect(describeChange(entry('priority', 'normal', 'high'), names)).toBe('changed Priority from Normal to High');
    expect(describeChange(entry('status_id', 1, 2), names)).toBe('changed Status from Open to In progress');
    expect(describeChange(entry('estimate_minutes', 1, 90), names)).toBe('changed Estimate from 1 minute to 90 minutes');
    expect(describeChange(entry('labels', ['a'], ['a', 'b']), names)).toBe('changed Labels from a to a, b');
  });

  test('when a field is set or cleared, then it says set or cleared', () => {
    expect(describeChange(entry('due_date', null, '2026-12-31'), names)).toBe('set Due date to date 2026-12-31');
    expect(describeChange(entry('due_date', '2026-12-31', null), names)).toBe('cleared Due date (was date 2026-12-31)');
    expect(describeChange(entry('labels', ['a'], []), names)).toBe('cleared Labels (was a)');
  });

  test('when the assignee changes, then it reads as assigning', () => {
    expect(describeChange(entry('assignee_id', null, 2), names)).toBe('assigned it to Bob');
    expect(describeChange(entry('assignee_id', 2, 1), names)).toBe('reassigned it from Bob to Ada');
    expect(describeChange(entry('assignee_id', 1, null), names)).toBe('unassigned Ada');
    expect(describeChange(entry('assignee_id', 9, null), names)).toBe('unassigned user #9');
  });

  test('when a text is long or was cut by history, then it is shortened and marked', () => {
    const long = 'x'.repeat(300);
    expect(describeChange(entry('description', '', long), names)).toBe(`set Description to “${'x'.repeat(120)}…”`);
    expect(describeChange(entry('description', 'short', 'cut here', true), names)).toBe('changed Description from “short” to “cut here…”');
  });

  test('when only the place within the status changed, then it says it moved', () => {
    expect(describeChange(entry('position', 1, 2.5), names)).toBe('moved it within its status');
  });
});
