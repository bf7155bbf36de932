import { DOCUMENTED, largestAnswers } from './answer-bounds';

describe('the largest answers the limits allow', () => {
  test('when every list and text is at its limit, then an issue read, a page and a search answer are the documented sizes', () => {
    expect(largestAnswers(false)).toEqual(DOCUMENTED.worst);
    expect(largestAnswers(true)).toEqual(DOCUMENTED.plain);
  });

  test('then an issue read is bounded by the embedded lists, not by what the issue holds (before: 5,000 comments of 50,000 characters were 250 MB of text)', () => {
    expect(DOCUMENTED.worst.read).toBeLessThan(22_000_000);
    expect(DOCUMENTED.plain.read).toBeLessThan(4_000_000);
  });
});
