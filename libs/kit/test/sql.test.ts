import { insertRow, join, raw, setColumns, sql, withNamedParameters } from '../src/sql';

describe('insertRow and setColumns', () => {
  test('each column stands beside its value, and values stay parameters', () => {
    const row = insertRow({ title: 'a', position: sql`(SELECT max(position) + ${1})`, created_at: raw('now()') });
    expect(row.text).toBe('(title, position, created_at) VALUES ($1, (SELECT max(position) + $2), now())');
    expect(row.values).toEqual(['a', 1]);
    const set = setColumns({ title: 'b', version: raw('version + 1') });
    expect(sql`UPDATE issues SET ${set} WHERE id = ${7}`.text).toBe('UPDATE issues SET title = $1, version = version + 1 WHERE id = $2');
  });
});

describe('withNamedParameters', () => {
  type Input = { id: number; at: Date; title: string };
  const AT = new Date('2026-01-01T00:00:00Z');

  test('a name used twice is one parameter, numbered in the order names first appear', () => {
    const statement = withNamedParameters<Input>(
      (p) => sql`UPDATE issues SET ${setColumns({ title: p.title, updated_at: p.at })} WHERE id = ${p.id} AND created_at <= ${p.at}`,
    );
    expect(statement.text).toBe('UPDATE issues SET title = $1, updated_at = $2 WHERE id = $3 AND created_at <= $2');
    expect(statement.values({ id: 4, at: AT, title: 'x' })).toEqual(['x', AT, 4]);
  });

  test('nested fragments and joined lists keep their named parameters', () => {
    const statement = withNamedParameters<Input>((p) => sql`INSERT INTO t ${insertRow({ id: p.id, n: sql`(SELECT ${p.id} + 1)`, title: p.title })} ${join([raw('RETURNING id')])}`);
    expect(statement.text).toBe('INSERT INTO t (id, n, title) VALUES ($1, (SELECT $1 + 1), $2) RETURNING id');
    expect(statement.values({ id: 9, at: AT, title: 't' })).toEqual([9, 't']);
  });

  test('the text is built once; a run only lists its values', () => {
    const build = jest.fn((p: { readonly id: unknown }) => sql`SELECT ${p.id}::int`);
    const statement = withNamedParameters<{ id: number | null }>(build);
    expect(statement.values({ id: null })).toEqual([null]);
    expect(statement.values({ id: 3 })).toEqual([3]);
    expect(build).toHaveBeenCalledTimes(1);
  });

  test('a value that is not a named parameter is refused when the statement is built', () => {
    expect(() => withNamedParameters<Input>((p) => sql`SELECT ${p.id}, ${42}`)).toThrow(/value 2 .* not a named parameter/);
  });
});
