import { ISSUE_READ_LIMITS } from '@tracker/contracts';
import { HISTORY_TEXT_LIMIT, prefixOf, shownChanges, shownHistoryValue, storedHistory, storedHistoryValue } from '../src/domain/history.rules';

describe('history text rules', () => {
  test('then the limit is the documented 1,000 characters', () => {
    expect(HISTORY_TEXT_LIMIT).toBe(ISSUE_READ_LIMITS.historyText);
    expect(HISTORY_TEXT_LIMIT).toBe(1000);
  });

  test('when a text is cut, then whole characters are kept: a surrogate pair is never split', () => {
    expect(prefixOf('abcdef', 3)).toBe('abc');
    expect(prefixOf('ab', 3)).toBe('ab');
    expect(prefixOf('😀😀😀', 2)).toBe('😀😀');
    expect(prefixOf('a😀b', 2)).toBe('a😀');
    expect(prefixOf('', 0)).toBe('');
  });

  test('when a text is at most the limit, then it is stored and shown as it is', () => {
    for (const text of ['', 'short', 'x'.repeat(10)]) {
      expect(storedHistoryValue(text, 10)).toBe(text);
      expect(shownHistoryValue(text, 10)).toEqual({ value: text, truncated: false });
    }
  });

  test('when a text is longer than the limit, then one character more is stored (the mark) and the limit is shown, truncated', () => {
    const long = 'y'.repeat(25);
    expect(storedHistoryValue(long, 10)).toBe('y'.repeat(11));
    expect(shownHistoryValue(long, 10)).toEqual({ value: 'y'.repeat(10), truncated: true });
    // What is stored reads back as what an uncut value shows: rows of before the rule (whole texts) read alike.
    expect(shownHistoryValue(storedHistoryValue(long, 10), 10)).toEqual(shownHistoryValue(long, 10));
    // Exactly one past the limit: stored as it is, shown cut.
    expect(storedHistoryValue('z'.repeat(11), 10)).toBe('z'.repeat(11));
    expect(shownHistoryValue('z'.repeat(11), 10)).toEqual({ value: 'z'.repeat(10), truncated: true });
  });

  test('when the characters are astral, then the limit counts characters (code points), as Postgres does', () => {
    const emoji = '😀'.repeat(12);
    expect(shownHistoryValue(emoji, 10)).toEqual({ value: '😀'.repeat(10), truncated: true });
    expect(storedHistoryValue(emoji, 10)).toBe('😀'.repeat(11));
    expect(shownHistoryValue('😀'.repeat(10), 10)).toEqual({ value: '😀'.repeat(10), truncated: false });
  });

  test('when a value is not a text, then it is kept whole (labels, numbers, null)', () => {
    for (const value of [['a', 'b'], 3.5, null, undefined, 7]) {
      expect(storedHistoryValue(value, 1)).toBe(value);
      expect(shownHistoryValue(value, 1)).toEqual({ value, truncated: false });
    }
  });

  test('when a PATCH changes a 100,000-character description, then its history and event carry 1,001 and 1,000 characters', () => {
    const changes = [
      { field: 'title' as const, from: 'Old', to: 'New' },
      { field: 'description' as const, from: 'a'.repeat(100_000), to: 'b'.repeat(100_000) },
    ];
    expect(storedHistory(changes)).toEqual([
      { field: 'title', from: 'Old', to: 'New' },
      { field: 'description', from: 'a'.repeat(1001), to: 'b'.repeat(1001) },
    ]);
    expect(shownChanges(changes)).toEqual([
      { field: 'title', from: 'Old', to: 'New', from_truncated: false, to_truncated: false },
      { field: 'description', from: 'a'.repeat(1000), to: 'b'.repeat(1000), from_truncated: true, to_truncated: true },
    ]);
  });
});

describe('field names', () => {
  test('history entries and the event name each field as the API does', () => {
    const changes = [
      { field: 'statusId' as const, from: 1, to: 2 },
      { field: 'estimateMinutes' as const, from: 0, to: 90 },
      { field: 'dueDate' as const, from: null, to: '2030-01-31' },
    ];
    expect(storedHistory(changes).map((c) => c.field)).toEqual(['status_id', 'estimate_minutes', 'due_date']);
    expect(shownChanges(changes)).toEqual([
      { field: 'status_id', from: 1, to: 2, from_truncated: false, to_truncated: false },
      { field: 'estimate_minutes', from: 0, to: 90, from_truncated: false, to_truncated: false },
      { field: 'due_date', from: null, to: '2030-01-31', from_truncated: false, to_truncated: false },
    ]);
  });
});
