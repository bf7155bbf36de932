import { arrivalRate, commentMatch, cursorAfter, eventMatch, issueMatch, waits } from '../src/integration-figures';

describe('eventMatch', () => {
  it('names an issue update by its key and version, a comment by its id', () => {
    expect(eventMatch({ type: 'issue.updated', data: { issue: { key: 'Q3-17', version: 4 }, previous: {} } })).toBe(issueMatch('Q3-17', 4));
    expect(eventMatch({ type: 'comment.added', data: { comment: { id: 912, issue_key: 'Q3-17' } } })).toBe(commentMatch(912));
  });

  it('matches nothing else', () => {
    expect(eventMatch({ type: 'issue.created', data: { issue: { key: 'Q3-17', version: 1 } } })).toBeNull();
    expect(eventMatch({ type: 'issue.updated', data: { issue: { key: 'Q3-17' } } })).toBeNull();
    expect(eventMatch({ type: 'floor', data: 'xxxx' })).toBeNull();
    expect(eventMatch(null)).toBeNull();
    expect(eventMatch('text')).toBeNull();
  });
});

describe('cursorAfter', () => {
  it('is the feed\'s cursor: c1_ and the base64url of the decimal position', () => {
    expect(cursorAfter(126)).toBe('c1_MTI2'); // the contract's example cursor
    expect(cursorAfter('0')).toBe('c1_MA');
    expect(cursorAfter(12345678901234n)).toBe(`c1_${Buffer.from('12345678901234').toString('base64url')}`);
  });
});

describe('waits', () => {
  it('gives each write\'s time from its 2xx to its first sighting, and counts those never seen', () => {
    const answered = new Map([
      ['a', 1000],
      ['b', 1010],
      ['c', 1020],
    ]);
    const seen = new Map([
      ['a', 1100],
      ['c', 1025],
      ['someone else', 900],
    ]);
    expect(waits(answered, seen)).toEqual({ ms: [100, 5], lost: 1 });
  });
});

describe('arrivalRate', () => {
  it('counts n - 1 intervals from the first arrival to the last, in any order', () => {
    expect(arrivalRate([3000, 1000, 2000])).toBeCloseTo(1, 10);
    expect(arrivalRate([0, 10, 20, 30, 40])).toBeCloseTo(100, 10);
  });

  it('is NaN with fewer than two arrivals or no span', () => {
    expect(arrivalRate([])).toBeNaN();
    expect(arrivalRate([5])).toBeNaN();
    expect(arrivalRate([5, 5])).toBeNaN();
  });
});
