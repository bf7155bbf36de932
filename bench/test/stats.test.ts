import { median, percentile, ratioOf, table, type Row } from '../src/stats';

describe('bench figures', () => {
  it('takes the median of odd and even counts, unsorted', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
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
