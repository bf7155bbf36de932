import sqlTemplateTag, { empty, join as joinFragments, raw, Sql as SqlQuery } from 'sql-template-tag';

/**
 * The one way to build a statement whose shape varies (optional filters, nested parts):
 *
 *   const where = join([sql`workspace_id = ${id}`, sql`queue_id = ANY(${ids}::int[])`], ' AND ');
 *   await rowsOf(pool, sql`SELECT ${raw(COLUMNS)} FROM issues WHERE ${where}`);
 *
 * Every interpolated value becomes a parameter ($1, $2.. in `.text`, the values in
 * `.values`), never text in the statement; a nested `sql` fragment is spliced in with its
 * parameters renumbered. `raw` inserts trusted text as is (fixed column lists only, never
 * input), `join` glues fragments with a separator, `empty` is the fragment with no text.
 * Fixed statements that every request runs are prepared statements instead (postgres.ts).
 *
 * sql-template-tag 4 because 5 is published as an ES module only, which jest's CommonJS
 * runtime cannot load. Its declared value type leaves out arrays and Dates, which
 * node-postgres binds (int[] filters, timestamps): the two functions taking values are
 * re-declared to accept any value.
 */
export const sql = sqlTemplateTag as (strings: readonly string[], ...values: unknown[]) => SqlQuery;
export const join = joinFragments as (values: readonly unknown[], separator?: string) => SqlQuery;
export { empty, raw, SqlQuery };
