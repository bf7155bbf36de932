import { StatisticsResult } from '../src';

describe('StatisticsResult', () => {
  test('an answer with an unassigned row and as_of parses; done_percent stays within 0..100', () => {
    const counts = { open: 1, progress: 0, done: 1, total: 2 };
    const minutes = { estimate_minutes: 30, spent_minutes: 0 };
    const answer = {
      total: 2,
      truncated: false,
      as_of: '2026-01-01T00:00:00.000Z',
      progress: { ...counts, done_percent: 50 },
      time: minutes,
      queues: [{ queue_id: 1, key: 'OPS', ...counts, ...minutes }],
      assignees: [{ assignee_id: null, ...counts, ...minutes }],
    };
    expect(StatisticsResult.parse(answer)).toEqual(answer);
    expect(StatisticsResult.safeParse({ ...answer, progress: { ...answer.progress, done_percent: 100.1 } }).success).toBe(false);
  });
});
