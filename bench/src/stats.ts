/** Pure figures and the results table (unit-tested; no I/O here). */

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Nearest-rank percentile (p in 0..100) of raw samples. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export interface Row {
  scenario: string;
  /** What was measured, e.g. "req/s" or "p95 ms". */
  metric: string;
  /** Median over the runs of the measured figure. */
  value: number;
  ceilingName: string;
  ceiling: number | null;
  /** value / ceiling, or (for latencies, lower is better) as the target states it. */
  ratio: number | null;
  target: string;
  met: boolean | null;
  /** Every run's value, so the spread is visible. */
  runs: number[];
  note?: string;
}

const fmt = (n: number | null) => {
  if (n === null || Number.isNaN(n)) return '–';
  if (Math.abs(n) >= 100) return n.toFixed(0);
  if (Math.abs(n) >= 10) return n.toFixed(1);
  return n.toFixed(2);
};

export function ratioOf(value: number, ceiling: number): number {
  return ceiling === 0 ? NaN : value / ceiling;
}

/**
 * The heap in use after each full collection, MiB, in the order printed: V8's `--trace-gc`
 * lines such as `[7:0x5f]  1005 ms: Mark-Compact 45.2 (60.1) -> 20.8 (58.0) MB, …` (in use
 * before, committed in brackets, then after; `Mark-Compact (reduce)` when V8 shrinks an idle
 * heap). Every other line is skipped.
 */
export function heapAfterFullCollections(output: string): number[] {
  return [...output.matchAll(/ms: Mark-Compact (?:\(reduce\) )?[\d.]+ \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB/g)].map((m) => Number(m[1]));
}

/**
 * B8's two ratios, both as "times the REST request" (above 1: the tool call costs more):
 * REST req/s over the tool's req/s, and the tool's CPU per request over REST's.
 */
export function costRatios(rest: { rps: number; cpuMs: number }, tool: { rps: number; cpuMs: number }): { throughput: number; cpu: number } {
  return { throughput: ratioOf(rest.rps, tool.rps), cpu: ratioOf(tool.cpuMs, rest.cpuMs) };
}

/** The results as a Markdown table. */
export function table(rows: readonly Row[]): string {
  const header = '| scenario | metric | median | ceiling | ceiling median | ratio | target | met | runs |';
  const line = '|---|---|---:|---|---:|---:|---|---|---|';
  const body = rows.map((r) =>
    [
      r.scenario,
      r.metric,
      fmt(r.value),
      r.ceilingName || '–',
      fmt(r.ceiling),
      r.ratio === null ? '–' : `${fmt(r.ratio)}×`,
      r.target,
      r.met === null ? '–' : r.met ? 'yes' : '**no**',
      r.runs.map(fmt).join(' / ') + (r.note ? ` (${r.note})` : ''),
    ].join(' | '),
  );
  return [header, line, ...body.map((b) => `| ${b} |`)].join('\n');
}

/** One size's rows for the scale table; `group` says which scenarios it ran (columns of one group sit together). */
export interface ScaleColumn {
  label: string;
  group: string;
  rows: readonly Row[];
}

/**
 * The scale table: one line per scenario and metric, one column per size of its group
 * (B1 and B3 by issues, B5 by queues), each cell the median of that size's runs. Sizes
 * may name a scenario differently only by the size in parentheses (B4's "(100k)").
 */
export function scaleTable(columns: readonly ScaleColumn[]): string {
  const groups = [...new Set(columns.map((c) => c.group))];
  const out: string[] = [];
  for (const group of groups) {
    const inGroup = columns.filter((c) => c.group === group);
    const keyOf = (r: Row) => `${r.scenario.replace(/ \(\d+k\)$/, '')} | ${r.metric}`;
    const keys = [...new Set(inGroup.flatMap((c) => c.rows.map(keyOf)))];
    out.push(`| scenario | metric | ${inGroup.map((c) => c.label).join(' | ')} |`);
    out.push(`|---|---|${inGroup.map(() => '---:').join('|')}|`);
    for (const key of keys) {
      const cells = inGroup.map((c) => fmt(c.rows.find((r) => keyOf(r) === key)?.value ?? null));
      out.push(`| ${key} | ${cells.join(' | ')} |`);
    }
    out.push('');
  }
  return out.join('\n').trimEnd();
}
