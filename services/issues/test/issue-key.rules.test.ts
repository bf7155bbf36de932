import { formatIssueKey, parseIssueKey } from '../src/domain/issue-key.rules';

describe('issue keys', () => {
  test.each([
    ['OPS-1', 'OPS', 1],
    ['ops-12', 'OPS', 12],
    ['Ab_9-2147483647', 'AB_9', 2147483647],
    ['ABCDEFGHIJKL-3', 'ABCDEFGHIJKL', 3],
  ])('when %s is parsed, then it names queue %s, number %i', (raw, queueKey, number) => {
    expect(parseIssueKey(raw)).toEqual({ queueKey, number, key: `${queueKey}-${number}` });
  });

  test.each(['', 'OPS', 'OPS-', '-1', 'O-1', '1OPS-1', 'OPS-0', 'OPS-01', 'OPS-1.5', 'OPS--1', 'OPS-2147483648', 'ABCDEFGHIJKLM-1', ' OPS-1', 'OPS-1 ', 'ÖPS-1', 'OPS_1'])(
    'when %j is parsed, then it is not a key',
    (raw) => expect(parseIssueKey(raw)).toBeNull(),
  );

  test('a key is the queue key, a dash and the number', () => {
    expect(formatIssueKey('OPS', 7)).toBe('OPS-7');
  });
});
