import { heapAfterFullCollections, median, percentile, ratioOf, scaleTable, table, type Row } from '../src/stats';

describe('bench figures', () => {
  it('takes the median of odd and even counts, unsorted', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('reads the heap in use after each full collection from V8 trace lines, nothing else', () => {
    const output = [
      '{"level":"warn","msg":"Mark-Compact 1.0 (2.0) -> 3.0 (4.0) MB in a log message"}',
      '[7:0x5f]     1005 ms: Mark-Compact 45.2 (60.1) -> 20.8 (58.0) MB, 6.25 / 0.00 ms  (+ 1.0 ms in 30 steps) finalize incremental marking via task; GC in old space requested',
      '[7:0x5f]     1010 ms: Scavenge 30.1 (58.0) -> 22.0 (58.0) MB, 0.51 / 0.00 ms  (average mu = 1.000) allocation failure;',
      '[7:0x5f]    31000 ms: Mark-Compact (reduce) 40.0 (61.0) -> 19.5 (30.2) MB, 3.1 / 0.0 ms  (+ 2.0 ms in 3 steps) memory reducer',
      '[7:0x5f]    42000 ms: Mark-Compact 96.4 (120.0) -> 21.0 (110.5) MB, 9.9 / 0.00 ms  (average mu = 0.8) allocation failure',
    ].join('\n');
    expect(heapAfterFullCollections(output)).toEqual([20.8, 19.5, 21.0]);
    expect(heapAfterFullCollections('')).toEqual([]);
  });

  it('takes nearest-rank percentiles', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([7], 95)).toBe(7);
  });

  it('divides by the ceiling, never by zero', () => {
    expect(ratioOf(50, 200)).toBe(0.25);
    expect(ratioOf(1, 0)).toBeNaN();
  });

  it('prints one Markdown row per figure with its ceiling, ratio and runs', () => {
    const rows: Row[] = [
      { scenario: 'B1', metric: 'req/s', value: 1234.4, ceilingName: 'bare', ceiling: 5000, ratio: 0.2469, target: '≥ 0.45×', met: false, runs: [1200, 1234.4, 1300] },
      { scenario: 'B7', metric: 'recovery s', value: 1.5, ceilingName: '', ceiling: null, ratio: null, target: '≤ 5 s', met: true, runs: [1.5] },
    ];
    const lines = table(rows).split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[2]).toBe('| B1 | req/s | 1234 | bare | 5000 | 0.25× | ≥ 0.45× | **no** | 1200 / 1234 / 1300 |');
    expect(lines[3]).toBe('| B7 | recovery s | 1.50 | – | – | – | ≤ 5 s | yes | 1.50 |');
  });
});

describe('scaleTable', () => {
  const rowOf = (scenario: string, metric: string, value: number): Row => ({ scenario, metric, value, ceilingName: '', ceiling: null, ratio: null, target: '', met: null, runs: [value] });

  test('one line per scenario and metric, one column per size of its group, a dash where a size has no figure', () => {
    const table = scaleTable([
      { label: '10k issues', group: 'B1,B3', rows: [rowOf('B1 GET issue, via gateway', 'req/s', 1200), rowOf('B3 POST /issues', 'p99 ms', 40)] },
      { label: '1M issues', group: 'B1,B3', rows: [rowOf('B1 GET issue, via gateway', 'req/s', 1100)] },
      { label: '5,000 queues', group: 'B5', rows: [rowOf('B5 statistics, 2000 issues', 'p50 ms', 9.5)] },
    ]);
    expect(table.split('\n')).toEqual([
      '| scenario | metric | 10k issues | 1M issues |',
      '|---|---|---:|---:|',
      '| B1 GET issue, via gateway | req/s | 1200 | 1100 |',
      '| B3 POST /issues | p99 ms | 40.0 | – |',
      '',
      '| scenario | metric | 5,000 queues |',
      '|---|---|---:|',
      '| B5 statistics, 2000 issues | p50 ms | 9.50 |',
    ]);
  });

  test('a scenario named with its size in parentheses is one line across sizes', () => {
    const table = scaleTable([
      { label: '100k', group: 'B4', rows: [rowOf('B4 search (100k)', 'p95 ms', 41)] },
      { label: '1M', group: 'B4', rows: [rowOf('B4 search (1000k)', 'p95 ms', 180)] },
    ]);
    expect(table.split('\n')[2]).toBe('| B4 search | p95 ms | 41.0 | 180 |');
  });
});
