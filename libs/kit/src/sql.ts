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

/**
 * `(a, b) VALUES (x, y)` for the row `{ a: x, b: y }`: an INSERT's columns, each written
 * beside its value (a value, a named parameter or a `sql` fragment), so a column is one
 * line of the row. The column names are the code's, never input.
 */
export const insertRow = (row: Readonly<Record<string, unknown>>): SqlQuery =>
  sql`(${raw(Object.keys(row).join(', '))}) VALUES (${join(Object.values(row), ', ')})`;

/** `a = x, b = y` for the row `{ a: x, b: y }`: an UPDATE's SET, built as insertRow. */
export const setColumns = (row: Readonly<Record<string, unknown>>): SqlQuery =>
  join(
    Object.entries(row).map(([column, value]) => sql`${raw(column)} = ${value}`),
    ', ',
  );

/** A parameter of a statement built once (withNamedParameters): its value comes by name on each run. */
class NamedParameter {
  constructor(readonly name: string) {}
}

/** A statement's fixed text and how one run's input becomes its values, in `$n` order. */
export interface NamedStatement<P> {
  readonly text: string;
  values(input: P): unknown[];
}

/**
 * A statement whose text is built once (at module load) with the tag above, then run
 * many times, usually prepared (postgres.ts `prepared`), where building the text on each
 * call would cost every request. Its values are named, not given:
 *
 *   const TOUCH = withNamedParameters<{ id: number; at: Date }>((p) => sql`UPDATE issues SET updated_at = ${p.at} WHERE id = ${p.id}`);
 *   await prepared(db, 'example.touch', TOUCH.text, TOUCH.values({ id, at }));
 *
 * Each name is one `$n` wherever it is used, numbered in the order the names first
 * appear in the text; `values(input)` lists the input's values in that order. Only named
 * parameters may be interpolated (a constant goes in as `raw` text or as an input).
 */
export function withNamedParameters<P extends object>(build: (p: { readonly [K in keyof P & string]-?: NamedParameter }) => SqlQuery): NamedStatement<P> {
  const parameters = new Proxy({} as { readonly [K in keyof P & string]-?: NamedParameter }, {
    get: (_, name) => new NamedParameter(String(name)),
  });
  const query = build(parameters);
  const names: string[] = [];
  const numbers = new Map<string, number>();
  const text = query.strings.reduce((built, part, index) => {
    const parameter = query.values[index - 1];
    if (!(parameter instanceof NamedParameter)) throw new Error(`withNamedParameters: value ${index} of the statement is not a named parameter`);
    let number = numbers.get(parameter.name);
    if (number === undefined) numbers.set(parameter.name, (number = names.push(parameter.name)));
    return `${built}$${number}${part}`;
  });
  return { text, values: (input) => names.map((name) => (input as Record<string, unknown>)[name]) };
}
