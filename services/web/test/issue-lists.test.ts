import { counted, listView, withPage } from '../app/src/rules/issue-lists';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('a long list of an issue, its start paged in and its newest items carried by the issue', () => {
  test('when the issue carried the whole list, then nothing is hidden', () => {
    expect(listView([], range(1, 3), 3)).toEqual({ head: [], hidden: 0, tail: [1, 2, 3], tailStart: 0 });
  });

  test('when the list is longer than the newest items, then the rest is counted as hidden', () => {
    expect(listView([], range(71, 120), 120)).toEqual({ head: [], hidden: 70, tail: range(71, 120), tailStart: 70 });
  });

  test('when a first page is read, then it shows at the start and fewer are hidden', () => {
    expect(listView(range(1, 50), range(71, 120), 120)).toMatchObject({ head: range(1, 50), hidden: 20, tail: range(71, 120), tailStart: 70 });
  });

  test('when the pages reach into the newest items, then no item is shown twice and none is hidden', () => {
    const view = listView(range(1, 100), range(71, 120), 120);
    expect(view).toEqual({ head: range(1, 100), hidden: 0, tail: range(101, 120), tailStart: 100 });
    expect([...view.head, ...view.tail]).toEqual(range(1, 120));
  });

  test('when the list grew since the pages were read, then the new items join at the end', () => {
    expect(listView(range(1, 50), range(73, 122), 122)).toMatchObject({ hidden: 22, tail: range(73, 122) });
  });

  test('when the total is smaller than the items at hand, then none is hidden or dropped', () => {
    expect(listView([], range(1, 5), 3)).toEqual({ head: [], hidden: 0, tail: range(1, 5), tailStart: 0 });
  });

  test('when a page comes, then its items join the head and the next cursor is kept', () => {
    expect(withPage([1, 2], { items: [3, 4], next_after_id: 4 })).toEqual({ head: [1, 2, 3, 4], cursor: 4 });
    expect(withPage([1, 2], { items: [3], next_after_id: null })).toEqual({ head: [1, 2, 3], cursor: null });
  });

  test('when a count is told, then one and many read right', () => {
    expect(counted(1, 'comment', 'comments')).toBe('1 comment');
    expect(counted(1200, 'comment', 'comments')).toBe('1,200 comments');
  });
});
