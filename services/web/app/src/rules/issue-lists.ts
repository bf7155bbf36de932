/**
 * An issue read carries the newest 50 of each list (oldest first) and each list's total;
 * the list operations page from the very first item forwards. So a long list is shown as
 * the pages read from its start (`head`), then the part neither covers (told as a count,
 * with a way to read on), then the newest items the issue carried (`tail`). The lists
 * only grow at their end, so positions are enough to join them: no item is shown twice.
 */
export interface ListView<T> {
  head: T[];
  /** How many items lie between the head and the tail, unread. */
  hidden: number;
  /** The tail's items not already in the head. */
  tail: T[];
  /** The position (0-based, in the whole list) of the tail's first item shown. */
  tailStart: number;
}

export function listView<T>(head: readonly T[], tail: readonly T[], total: number): ListView<T> {
  // A total smaller than the items at hand (an item gone since) must not hide any of them.
  const whole = Math.max(total, tail.length);
  const tailFrom = whole - tail.length;
  const overlap = Math.max(0, head.length - tailFrom);
  return {
    head: [...head],
    hidden: Math.max(0, tailFrom - head.length),
    tail: tail.slice(overlap),
    tailStart: tailFrom + overlap,
  };
}

/** The next page's items added to the head; `next` is the page's `next_after_id` (null: the list is read to its end). */
export function withPage<T>(head: readonly T[], page: { items: readonly T[]; next_after_id: number | null }): { head: T[]; cursor: number | null } {
  return { head: [...head, ...page.items], cursor: page.next_after_id };
}

/** "1 comment", "3 comments". */
export const counted = (count: number, one: string, many: string): string => `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
