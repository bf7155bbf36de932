import { initialStatus, normalizeQueueKey, queueSettingsChanges, STANDARD_STATUSES } from '../src/domain/queues.rules';

describe('queue rules', () => {
  test('a new queue has Open, In progress, In review, Done and Cancelled, in that order', () => {
    expect(STANDARD_STATUSES.map((s) => [s.name, s.category])).toEqual([
      ['Open', 'open'],
      ['In progress', 'progress'],
      ['In review', 'progress'],
      ['Done', 'done'],
      ['Cancelled', 'done'],
    ]);
  });

  test('a new issue starts in the first open status by position', () => {
    const statuses = [
      { id: 2, category: 'progress' as const, position: 1 },
      { id: 3, category: 'open' as const, position: 3 },
      { id: 4, category: 'open' as const, position: 2 },
    ];
    expect(initialStatus(statuses)).toEqual({
      id: 4,
      category: 'open',
      position: 2,
    });
    expect(initialStatus([{ category: 'done' as const, position: 1 }])).toBeUndefined();
  });

  test('queue keys are stored upper-case', () => {
    expect(normalizeQueueKey('ops_1')).toBe('OPS_1');
  });

  test('only settings that differ count as changes', () => {
    const queue = { name: 'Ops', description: '' };
    expect(queueSettingsChanges(queue, {})).toEqual({});
    expect(queueSettingsChanges(queue, { name: 'Ops', description: '' })).toEqual({});
    expect(queueSettingsChanges(queue, { name: 'Operations', description: '' })).toEqual({ name: 'Operations' });
  });
});
