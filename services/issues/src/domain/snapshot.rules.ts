/** A candidate row of a snapshot page: its id and the bytes it is counted for. */
export interface Sized {
  id: number;
  size: number;
}

/**
 * Which of the candidates (ascending ids, up to `limit + 1` of them) make the page: at
 * most `limit` rows, and rows only while their sizes together stay within `budget`; the
 * first row always, however large, so every page moves the walk on. `more`: rows follow.
 */
export function choosePage(candidates: readonly Sized[], limit: number, budget: number): { ids: number[]; more: boolean } {
  const ids: number[] = [];
  let used = 0;
  for (const row of candidates) {
    if (ids.length >= limit) break;
    if (ids.length > 0 && used + row.size > budget) break;
    ids.push(row.id);
    used += row.size;
  }
  return { ids, more: candidates.length > ids.length };
}

/** The cursor of the next page: the last id sent, or null when nothing follows. */
export const nextAfterId = (ids: readonly number[], more: boolean): number | null => (more && ids.length > 0 ? ids[ids.length - 1]! : null);
