import type { SearchRepository } from '../domain/ports';
import { selectsNothing, type Category, type SearchCriteria } from '@tracker/contracts';
import { join, raw, rowsOf, sql, type Sql, type SqlQuery } from '@tracker/kit';
import type { IssueSummaryRecord } from '../domain/model';
import { ISSUE_SUMMARY_COLUMNS } from './issue-reads.repository';
import { searchConditions, searchTextQuery } from '@tracker/search-sql';

/**
 * The search as one SQL statement returning issue summaries, the description cut to its
 * first characters (exported so a test and the benchmark can EXPLAIN it): 2000 rows of
 * 100,000-character descriptions would be a 200 MB answer. Built with the kit's sql tag:
 * every value a parameter ($n in `.text`).
 *
 * Free text matches an issue's own text or one of its comments. Each of the two is its
 * own branch with every filter applied, so both start from their GIN index
 * (issues.search_vector, comments.search_vector) and stay as small as their matches;
 * whole records are read for the union's ids only. (Matching ids first and filtering
 * after made the planner scan the filtered issues instead: 2.2 x slower at 100k
 * issues, 3.2 x at 1M; bench/README.md, B4.)
 *
 * In the issue-text branch a status category is read for each issue the text matched
 * (statusInCategory), not filtered on the joined status: that filter let the planner walk
 * the category's statuses and scan the text index once for each (100 scans at 1M issues:
 * 175 ms of SQL against 120-136), and naming the statuses as an id list made it combine
 * the text index with a status bitmap as large as the category (15 ms against 5.5 at 100k
 * once most issues sat in open statuses). Read per row, the cost follows the text's
 * matches alone. The comment branch keeps the joined filter (an id list made its plan
 * worse: 13 ms against 4.4 at 100k).
 */
export function searchSql(criteria: SearchCriteria): SqlQuery {
  // Filters on the joined status (alias s); the issue-text branch reads a category per row (below).
  const where = join(searchConditions(criteria, 's.category'), ' AND ');
  const order = sql`ORDER BY i.updated_at DESC, i.id DESC LIMIT ${criteria.limit}`;
  const record = raw(ISSUE_SUMMARY_COLUMNS);
  if (!criteria.text) return sql`SELECT ${record} FROM issues i JOIN statuses s ON s.id = i.status_id WHERE ${where} ${order}`;
  const query = searchTextQuery(criteria.text);
  const issueWhere = criteria.category
    ? join([...searchConditions({ ...criteria, category: undefined }, 's.category'), statusInCategory(criteria.category)], ' AND ')
    : where;
  return sql`
    WITH hits AS (
      SELECT i.id FROM issues i JOIN statuses s ON s.id = i.status_id
       WHERE ${issueWhere} AND i.search_vector @@ ${query}
      UNION
      SELECT i.id FROM comments c JOIN issues i ON i.id = c.issue_id JOIN statuses s ON s.id = i.status_id
       WHERE ${where} AND c.search_vector @@ ${query})
    SELECT ${record} FROM hits JOIN issues i ON i.id = hits.id
    ${order}`;
}

/** The issue's status (alias i) is of `category`, read for the row at hand. */
const statusInCategory = (category: Category) => sql`(SELECT st.category FROM statuses st WHERE st.id = i.status_id) = ${category}::status_category`;

export function searchRepository(db: Sql): SearchRepository {
  return {
    async search(criteria: SearchCriteria): Promise<IssueSummaryRecord[]> {
      // An empty id list (or no readable queue) admits no issue: no query.
      if (selectsNothing(criteria)) return [];
      return rowsOf<IssueSummaryRecord>(db, searchSql(criteria));
    },
  };
}

