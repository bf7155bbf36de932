/**
 * The page parameters of every list answer (`after_id`, `limit` up to 50), as the lists'
 * tests try them: query strings that are not a page, each with the parameters its 422 must
 * name (sorted), and queries at the edges that are.
 */
export const INVALID_PAGE_QUERIES: ReadonlyArray<readonly [query: string, paths: string[]]> = [
  ['limit=0', ['limit']],
  ['limit=51', ['limit']],
  ['limit=abc', ['limit']],
  ['limit=', ['limit']],
  ['limit=1.5', ['limit']],
  ['limit=1e1', ['limit']],
  ['limit=-1', ['limit']],
  ['after_id=-1', ['after_id']],
  ['after_id=2147483648', ['after_id']],
  ['after_id=99999999999', ['after_id']],
  ['limit=5&limit=6', ['limit']],
  ['limit[a]=1', ['limit[a]']],
  ['offset=3', ['offset']],
  ['limit=0&after_id=x&page=2', ['after_id', 'limit', 'page']],
];

export const VALID_PAGE_QUERIES: readonly string[] = ['after_id=0&limit=50', 'limit=1', 'after_id=2147483647'];
