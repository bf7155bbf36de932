import { choosePage, nextAfterId } from '../src/domain/snapshot.rules';

const rows = (...sizes: number[]) => sizes.map((size, i) => ({ id: i + 1, size }));

describe('snapshot pages', () => {
  test('when the rows are small, then the page is cut by the row limit, and more follow only if a candidate was left', () => {
    expect(choosePage(rows(1, 1, 1, 1), 3, 100)).toEqual({ ids: [1, 2, 3], more: true });
    expect(choosePage(rows(1, 1, 1), 3, 100)).toEqual({ ids: [1, 2, 3], more: false });
    expect(choosePage([], 3, 100)).toEqual({ ids: [], more: false });
  });

  test('when the rows are large, then the page stops before their sizes pass the budget', () => {
    expect(choosePage(rows(40, 40, 40, 40), 10, 100)).toEqual({ ids: [1, 2], more: true });
    expect(choosePage(rows(50, 50, 1), 10, 100)).toEqual({ ids: [1, 2], more: true });
    expect(choosePage(rows(100), 10, 100)).toEqual({ ids: [1], more: false });
  });

  test('when one row alone is over the budget, then it is a page of its own, so every page moves the walk on', () => {
    expect(choosePage(rows(500, 1, 1), 10, 100)).toEqual({ ids: [1], more: true });
    expect(choosePage(rows(1, 500, 1), 10, 100)).toEqual({ ids: [1], more: true });
    expect(choosePage(rows(500), 10, 100)).toEqual({ ids: [1], more: false });
  });

  test('then the next page starts after the last row sent, and there is none when nothing follows', () => {
    expect(nextAfterId([4, 9], true)).toBe(9);
    expect(nextAfterId([4, 9], false)).toBeNull();
    expect(nextAfterId([], true)).toBeNull();
  });
});
