import {
  chartLabel,
  chartSubject,
  chartWidth,
  figuresOf,
  fitLabel,
  formatCount,
  formatMinutes,
  formatPercent,
  hasFigures,
  layoutBars,
  linearScale,
  summaryOf,
  truncationNote,
  widgetName,
  type Statistics,
} from '../app/src/rules/chart';
import type { Names } from '../app/src/rules/statistics-filters';

/** A statistics answer as POST /api/v1/statistics gives it. */
function stats(overrides: Partial<Statistics> = {}): Statistics {
  return {
    total: 13,
    truncated: false,
    as_of: '2026-05-01T10:00:00.000Z',
    progress: { open: 4, progress: 2, done: 7, total: 13, done_percent: 53.8 },
    time: { estimate_minutes: 300, spent_minutes: 150 },
    queues: [
      { queue_id: 1, key: 'OPS', open: 3, progress: 2, done: 5, total: 10, estimate_minutes: 200, spent_minutes: 100 },
      { queue_id: 2, key: 'WEB', open: 1, progress: 0, done: 2, total: 3, estimate_minutes: 100, spent_minutes: 50 },
    ],
    assignees: [
      { assignee_id: null, open: 2, progress: 0, done: 1, total: 3, estimate_minutes: 0, spent_minutes: 0 },
      { assignee_id: 5, open: 2, progress: 2, done: 6, total: 10, estimate_minutes: 300, spent_minutes: 150 },
    ],
    ...overrides,
  };
}

const names: Names = {
  queue: (id) => ({ 1: 'OPS', 2: 'WEB' })[id],
  status: (id) => ({ 11: 'OPS Open' })[id],
  user: (id) => ({ 5: 'Bea' })[id],
};

describe('the figures a widget type picks', () => {
  test('when grouped by status category, then the three categories in workflow order', () => {
    expect(figuresOf('statuses', stats(), names)).toEqual({
      subject: 'Issues by status category',
      column: 'Status category',
      unit: 'issues',
      figures: [
        { label: 'Open', value: 4 },
        { label: 'In progress', value: 2 },
        { label: 'Done', value: 7 },
      ],
    });
  });

  test('when grouped by queue, then one figure per queue, by key, with its total', () => {
    expect(figuresOf('queues', stats(), names).figures).toEqual([
      { label: 'OPS', value: 10 },
      { label: 'WEB', value: 3 },
    ]);
  });

  test('when grouped by assignee, then people by name, the unassigned as such, and an unknown id as a user number', () => {
    const answer = stats({ assignees: [...stats().assignees, { assignee_id: 9, open: 1, progress: 0, done: 0, total: 1, estimate_minutes: 0, spent_minutes: 0 }] });
    expect(figuresOf('assignees', answer, names).figures).toEqual([
      { label: 'Unassigned', value: 3 },
      { label: 'Bea', value: 10 },
      { label: 'User 9', value: 1 },
    ]);
  });

  test('when the widget shows time, then the estimate and the recorded minutes', () => {
    const set = figuresOf('time', stats(), names);
    expect(set.unit).toBe('minutes');
    expect(set.figures).toEqual([
      { label: 'Estimated', value: 300 },
      { label: 'Recorded', value: 150 },
    ]);
  });

  test('when a summary or issues widget is drawn, then its bars are the status categories', () => {
    expect(figuresOf('stats', stats(), names).figures.map((f) => f.value)).toEqual([4, 2, 7]);
    expect(figuresOf('issues', stats(), names).figures.map((f) => f.label)).toEqual(['Open', 'In progress', 'Done']);
  });

  test('when every figure is zero or there are none, then there is nothing to draw', () => {
    const none = stats({ total: 0, progress: { open: 0, progress: 0, done: 0, total: 0, done_percent: 0 }, queues: [], assignees: [] });
    expect(hasFigures(figuresOf('statuses', none, names))).toBe(false);
    expect(hasFigures(figuresOf('queues', none, names))).toBe(false);
    expect(hasFigures(figuresOf('statuses', stats(), names))).toBe(true);
  });
});

describe('numbers in words', () => {
  test.each([
    [0, '0 min'],
    [45, '45 min'],
    [60, '1 h'],
    [150, '2 h 30 min'],
    [90_061, '1,501 h 1 min'],
  ])('when %i minutes are shown, then they read "%s"', (minutes, words) => {
    expect(formatMinutes(minutes, 'en')).toBe(words);
  });

  test('when counts and shares are shown, then counts have separators and shares one decimal at most', () => {
    expect(formatCount(12345, 'en')).toBe('12,345');
    expect(formatPercent(53.8, 'en')).toBe('53.8%');
    expect(formatPercent(100, 'en')).toBe('100%');
  });
});

describe('the chart’s accessible name', () => {
  test('when a chart is named, then it says what it counts, over which issues, and every figure', () => {
    const subject = chartSubject('', 'statuses', { queue_ids: [1] }, names);
    expect(chartLabel(subject, figuresOf('statuses', stats(), names), 'en')).toBe('Issues by status category in OPS: Open 4, In progress 2, Done 7');
  });

  test('when the widget has a title, then the title leads and what it counts follows', () => {
    const subject = chartSubject('Release work', 'queues', { priority: 'high', overdue: true }, names);
    expect(subject).toBe('Release work, issues by queue of high priority, overdue');
    expect(chartLabel(subject, figuresOf('queues', stats(), names), 'en')).toBe('Release work, issues by queue of high priority, overdue: OPS 10, WEB 3');
  });

  test('when the figures are time, then they are told in hours and minutes', () => {
    expect(chartLabel('Time', figuresOf('time', stats(), names), 'en')).toBe('Time: Estimated 5 h, Recorded 2 h 30 min');
  });

  test('when there are no figures, then the name says there are no issues', () => {
    expect(chartLabel('Issues by queue', figuresOf('queues', stats({ queues: [] }), names))).toBe('Issues by queue: no issues');
  });

  test('when a widget has no title, then its name is what it shows; with one, the title', () => {
    expect(widgetName('  ', 'assignees', { assignee_ids: [5] }, names)).toBe('Issues by assignee assigned to Bea');
    expect(widgetName(' Mine ', 'assignees', {}, names)).toBe('Mine');
  });
});

describe('the summary and the truncation note', () => {
  test('when a summary is told, then the total, the share done and the time', () => {
    expect(summaryOf(stats(), 'en')).toBe('13 issues, 53.8% done. Estimated 5 h, recorded 2 h 30 min.');
    expect(summaryOf(stats({ total: 1 }), 'en')).toMatch(/^1 issue, /);
  });

  test('when the 2000-issue limit cut the set, then the note says how many were counted of how many', () => {
    expect(truncationNote(stats(), 'en')).toBe('');
    const cut = stats({ total: 2500, truncated: true, progress: { open: 1000, progress: 500, done: 500, total: 2000, done_percent: 25 } });
    expect(truncationNote(cut, 'en')).toBe('2,500 issues match; the figures count the 2,000 most recently updated.');
  });
});

describe('scales and bar geometry', () => {
  test('when a value is scaled, then 0..max maps onto 0..length, clamped; a max of zero draws nothing', () => {
    const scale = linearScale(10, 200);
    expect(scale(0)).toBe(0);
    expect(scale(5)).toBe(100);
    expect(scale(10)).toBe(200);
    expect(scale(20)).toBe(200);
    expect(linearScale(0, 200)(5)).toBe(0);
  });

  test('when a label is longer than its room, then it is cut with an ellipsis; a short one is kept', () => {
    expect(fitLabel('Ada Lovelace-Byron', 8)).toBe('Ada Lov…');
    expect(fitLabel('OPS', 8)).toBe('OPS');
  });

  test('when bars are laid out, then the largest fills the room left for the longest value, others in proportion', () => {
    const layout = layoutBars({ subject: '', column: '', unit: 'issues', figures: [{ label: 'Open', value: 10 }, { label: 'Done', value: 5 }] }, { width: 400, fontSize: 16, locale: 'en' });
    expect(layout.rows).toHaveLength(2);
    const [first, second] = layout.rows;
    expect(first!.barWidth).toBeLessThan(400);
    expect(first!.barWidth).toBeGreaterThan(350);
    expect(second!.barWidth).toBeCloseTo(first!.barWidth / 2, 0);
    // The value's text starts past the bar's end and still fits in the width.
    expect(first!.valueX).toBeGreaterThan(first!.barWidth);
    expect(first!.valueX + first!.valueText.length * 16 * 0.6).toBeLessThanOrEqual(400);
    // Rows follow each other without overlapping, and the height holds them all.
    expect(second!.labelY).toBeGreaterThan(first!.barY + first!.barHeight);
    expect(layout.height).toBeGreaterThanOrEqual(second!.barY + second!.barHeight);
  });

  test('when a value is tiny next to the largest, then it still gets a visible sliver; zero gets none', () => {
    const layout = layoutBars({ subject: '', column: '', unit: 'issues', figures: [{ label: 'A', value: 10_000 }, { label: 'B', value: 1 }, { label: 'C', value: 0 }] });
    expect(layout.rows[1]!.barWidth).toBe(2);
    expect(layout.rows[2]!.barWidth).toBe(0);
  });

  test('when the chart’s box is measured, then the chart is laid out for that width, within bounds; unmeasured, a default', () => {
    expect(chartWidth(null)).toBe(400);
    expect(chartWidth(0)).toBe(400);
    expect(chartWidth(310.4)).toBe(310);
    expect(chartWidth(120)).toBe(240);
    expect(chartWidth(2000)).toBe(640);
  });

  test('when there are no figures, then the chart has no height', () => {
    expect(layoutBars({ subject: '', column: '', unit: 'issues', figures: [] }).height).toBe(0);
  });
});
