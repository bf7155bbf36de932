/** The rows of a run's table, as the scenarios build them, and the labels they share. */
import { median, ratioOf, type Row } from './stats';

export const CPU_METRIC = 'CPU ms per request, all processes';
export const SERVING_CPU_METRIC = 'CPU ms per request, all but the load generator';
export const EXPLAINS = '(explains the ratio)';

/** A row as a scenario states it: its value is the runs' median and its ratio value ÷ ceiling unless given. */
export type RowInput = Omit<Row, 'value' | 'ratio' | 'met'> & {
  value?: number;
  ratio?: number | null;
  met: (value: number, ratio: number | null) => boolean | null;
};

/** The run's rows, in the order measured, and `row`, which completes one, adds it and says it. */
export function rowCollector(say: (text: string) => void): { rows: Row[]; row: (r: RowInput) => void } {
  const rows: Row[] = [];
  const row = (r: RowInput) => {
    const value = r.value ?? median(r.runs);
    const ratio = r.ratio !== undefined ? r.ratio : r.ceiling === null ? null : ratioOf(value, r.ceiling);
    const done: Row = { ...r, value, ratio, met: r.met(value, ratio) };
    rows.push(done);
    say(`${done.scenario} ${done.metric}: ${value.toFixed(2)}${done.ceiling !== null ? ` vs ${done.ceiling.toFixed(2)}` : ''} ${done.met === false ? 'MISSED' : ''}`);
  };
  return { rows, row };
}

/** What a hop adds, run by run: the time through it less its service's own time in the same run. */
export const added = (via: number[], direct: number[]) => via.map((v, i) => v - direct[i]!);

/** An empty list for each of `keys`. */
export const listsFor = <Key extends string>(keys: readonly Key[]) => Object.fromEntries(keys.map((key) => [key, [] as number[]])) as Record<Key, number[]>;
