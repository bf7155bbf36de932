import { changedValues, createsCycle, diffIssue, endPosition, movesToAnotherStatus, normalizeLabels, requestedFields } from '../src/domain/issue-update.rules';
import type { IssueFields } from '../src/domain/model';

const current: IssueFields = {
  title: 'Disk full',
  description: '',
  statusId: 10,
  position: 3,
  assigneeId: 7,
  parentId: null,
  priority: 'normal',
  type: 'task',
  labels: ['infra'],
  dueDate: '2030-01-01',
  estimateMinutes: 0,
};

describe('change detection', () => {
  test('when the PATCH is empty or repeats every value, then nothing changes', () => {
    expect(diffIssue(current, {})).toEqual([]);
    expect(diffIssue(current, { ...current, labels: ['infra'] })).toEqual([]);
  });

  test('when fields change, then one change per field with old and new value, in a fixed order', () => {
    expect(diffIssue(current, { priority: 'high', title: 'Disk fuller', labels: ['infra', 'db'] })).toEqual([
      { field: 'title', from: 'Disk full', to: 'Disk fuller' },
      { field: 'priority', from: 'normal', to: 'high' },
      { field: 'labels', from: ['infra'], to: ['infra', 'db'] },
    ]);
  });

  test('when null is given for a nullable field, then it clears; absent leaves it', () => {
    expect(diffIssue(current, { assigneeId: null, dueDate: null })).toEqual([
      { field: 'assigneeId', from: 7, to: null },
      { field: 'dueDate', from: '2030-01-01', to: null },
    ]);
    expect(diffIssue(current, { parentId: null })).toEqual([]);
  });

  test('when labels are reordered, then that is a change', () => {
    expect(diffIssue({ ...current, labels: ['a', 'b'] }, { labels: ['b', 'a'] })).toHaveLength(1);
  });

  test('when the status changes without a position, then the issue goes to the end of the new status', () => {
    expect(movesToAnotherStatus(current, { statusId: 11 })).toBe(true);
    expect(diffIssue(current, { statusId: 11 }, 5)).toEqual([
      { field: 'statusId', from: 10, to: 11 },
      { field: 'position', from: 3, to: 5 },
    ]);
    expect(() => diffIssue(current, { statusId: 11 })).toThrow();
  });

  test('when the status changes with a position, or the same status is sent, then the given position holds', () => {
    expect(diffIssue(current, { statusId: 11, position: 0.5 })).toEqual([
      { field: 'statusId', from: 10, to: 11 },
      { field: 'position', from: 3, to: 0.5 },
    ]);
    expect(movesToAnotherStatus(current, { statusId: 10 })).toBe(false);
    expect(diffIssue(current, { statusId: 10 })).toEqual([]);
  });

  test('the changed values map back to a patch of just those fields', () => {
    expect(changedValues(diffIssue(current, { title: 'x', assigneeId: null }))).toEqual({ title: 'x', assigneeId: null });
  });

  test('the requested fields drop the version and duplicate labels but keep nulls', () => {
    expect(requestedFields({ version: 3, labels: ['a', 'b', 'a'], parentId: null })).toEqual({ labels: ['a', 'b'], parentId: null });
    expect(normalizeLabels([])).toEqual([]);
  });
});

describe('positions', () => {
  test('the end of an empty status is 1, otherwise one past the largest position', () => {
    expect(endPosition(null)).toBe(1);
    expect(endPosition(4)).toBe(5);
    expect(endPosition(-2.5)).toBe(-1.5);
  });
});

describe('cycle detection', () => {
  test('when the new parent is the issue itself or below it, then it is a cycle', () => {
    expect(createsCycle(1, 1, [])).toBe(true);
    expect(createsCycle(1, 3, [2, 1])).toBe(true);
  });

  test('when the issue is not above the new parent, then it is not a cycle', () => {
    expect(createsCycle(1, 3, [])).toBe(false);
    expect(createsCycle(1, 3, [4, 5])).toBe(false);
  });
});
