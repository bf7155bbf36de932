/**
 * What a statistics chart shows and where its bars go: the figures a widget type picks
 * from a statistics answer, their words (the chart's accessible name, its table), number
 * formats, and the bars' geometry in the SVG's own units (the SVG scales to its width by
 * its viewBox). Pure: no React, no DOM.
 */
import type { Schemas } from '@tracker/client';
import { describeFilters, type Filters, type Names } from './statistics-filters';

export type Statistics = Schemas['StatisticsResult'];
export type WidgetType = Schemas['Widget']['type'];

/** Each widget type as the "Group by" choice names it, in the order offered. */
export const WIDGET_TYPES: ReadonlyArray<{ value: WidgetType; label: string }> = [
  { value: 'statuses', label: 'Status category' },
  { value: 'queues', label: 'Queue' },
  { value: 'assignees', label: 'Assignee' },
  { value: 'time', label: 'Time: estimated and recorded' },
  { value: 'stats', label: 'Summary: status category, done and time' },
  { value: 'issues', label: 'Issues found, by status category' },
];

export type Unit = 'issues' | 'minutes';

export interface Figure {
  label: string;
  value: number;
}

export interface FigureSet {
  /** What is counted, as a sentence starts: "Issues by queue". */
  subject: string;
  /** The table's heading for the labels column. */
  column: string;
  unit: Unit;
  figures: Figure[];
}

/** What each widget's figures are and count; the figures themselves come from the answer. */
const SETS: Record<WidgetType, Omit<FigureSet, 'figures'>> = {
  statuses: { subject: 'Issues by status category', column: 'Status category', unit: 'issues' },
  queues: { subject: 'Issues by queue', column: 'Queue', unit: 'issues' },
  assignees: { subject: 'Issues by assignee', column: 'Assignee', unit: 'issues' },
  time: { subject: 'Estimated and recorded time', column: 'Work', unit: 'minutes' },
  stats: { subject: 'Summary of issues by status category', column: 'Status category', unit: 'issues' },
  issues: { subject: 'Issues found by status category', column: 'Status category', unit: 'issues' },
};

/** The figures a widget of `type` shows of a statistics answer, in the order drawn. */
export function figuresOf(type: WidgetType, stats: Statistics, names: Pick<Names, 'user'>): FigureSet {
  return { ...SETS[type], figures: figureList(type, stats, names) };
}

function figureList(type: WidgetType, stats: Statistics, names: Pick<Names, 'user'>): Figure[] {
  switch (type) {
    case 'queues':
      return stats.queues.map((queue) => ({ label: queue.key, value: queue.total }));
    case 'assignees':
      return stats.assignees.map((row) => ({
        label: row.assignee_id === null ? 'Unassigned' : (names.user(row.assignee_id) ?? `User ${row.assignee_id}`),
        value: row.total,
      }));
    case 'time':
      return [
        { label: 'Estimated', value: stats.time.estimate_minutes },
        { label: 'Recorded', value: stats.time.spent_minutes },
      ];
    default:
      return [
        { label: 'Open', value: stats.progress.open },
        { label: 'In progress', value: stats.progress.progress },
        { label: 'Done', value: stats.progress.done },
      ];
  }
}

/** Whether there is anything to draw: some figure above zero. */
export const hasFigures = (set: FigureSet) => set.figures.some((figure) => figure.value > 0);

export const formatCount = (value: number, locale?: string) => new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }).format(value);

export const formatPercent = (value: number, locale?: string) => `${new Intl.NumberFormat(locale, { maximumFractionDigits: 1 }).format(value)}%`;

/** Minutes as people read them: "45 min", "3 h", "2 h 30 min". */
export function formatMinutes(minutes: number, locale?: string): string {
  const whole = Math.max(0, Math.round(minutes));
  const hours = Math.floor(whole / 60);
  const rest = whole % 60;
  if (hours === 0) return `${rest} min`;
  if (rest === 0) return `${formatCount(hours, locale)} h`;
  return `${formatCount(hours, locale)} h ${rest} min`;
}

export const formatValue = (value: number, unit: Unit, locale?: string) => (unit === 'minutes' ? formatMinutes(value, locale) : formatCount(value, locale));

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/** What a chart counts and over which issues: "Issues by queue in OPS, overdue". */
export function subjectWithFilters(type: WidgetType, filters: Partial<Filters> | undefined, names: Names): string {
  const words = describeFilters(filters, names);
  return words ? `${SETS[type].subject} ${words}` : SETS[type].subject;
}

/** A widget's name: its title, or what it counts when it has none. */
export const widgetName = (title: string, type: WidgetType, filters: Partial<Filters> | undefined, names: Names) =>
  title.trim() || subjectWithFilters(type, filters, names);

/** What a chart shows, before its figures: the title (if any), then what is counted over which issues. */
export function chartSubject(title: string, type: WidgetType, filters: Partial<Filters> | undefined, names: Names): string {
  const subject = subjectWithFilters(type, filters, names);
  return title.trim() ? `${title.trim()}, ${lowerFirst(subject)}` : subject;
}

/** The chart's accessible name: what it shows and every figure, "Issues by status category in OPS: Open 4, In progress 2, Done 7". */
export function chartLabel(subject: string, set: FigureSet, locale?: string): string {
  if (set.figures.length === 0) return `${subject}: no issues`;
  return `${subject}: ${set.figures.map((figure) => `${figure.label} ${formatValue(figure.value, set.unit, locale)}`).join(', ')}`;
}

/** The sentence under a summary: totals, the share done, the time; and whether the 2000-issue limit cut the set. */
export function summaryOf(stats: Statistics, locale?: string): string {
  const issues = stats.total === 1 ? 'issue' : 'issues';
  const parts = [
    `${formatCount(stats.total, locale)} ${issues}, ${formatPercent(stats.progress.done_percent, locale)} done.`,
    `Estimated ${formatMinutes(stats.time.estimate_minutes, locale)}, recorded ${formatMinutes(stats.time.spent_minutes, locale)}.`,
  ];
  return parts.join(' ');
}

/** Said when the statistics counted only part of the matches. */
export function truncationNote(stats: Statistics, locale?: string): string {
  if (!stats.truncated) return '';
  return `${formatCount(stats.total, locale)} issues match; the figures count the ${formatCount(stats.progress.total, locale)} most recently updated.`;
}

/** A linear scale from 0..`max` to 0..`length`; a max of 0 or less draws every value at 0. */
export function linearScale(max: number, length: number): (value: number) => number {
  if (!(max > 0)) return () => 0;
  return (value) => Math.min(length, Math.max(0, (value / max) * length));
}

/** A label cut to `max` characters, with an ellipsis when cut (the table has it whole). */
export function fitLabel(label: string, max: number): string {
  const chars = Array.from(label);
  if (chars.length <= max) return label;
  return `${chars.slice(0, Math.max(1, max - 1)).join('')}…`;
}

/** The chart's own width for the width its box measures (null: not measured yet), within what a chart can use. */
export function chartWidth(measured: number | null): number {
  if (measured === null || !Number.isFinite(measured) || measured <= 0) return 400;
  return Math.round(Math.min(640, Math.max(240, measured)));
}

export interface BarRow {
  label: string;
  valueText: string;
  /** Baseline of the label, above its bar. */
  labelY: number;
  barY: number;
  barWidth: number;
  barHeight: number;
  /** Where the value's text starts: just past the bar's end. */
  valueX: number;
  valueY: number;
}

export interface BarLayout {
  width: number;
  height: number;
  fontSize: number;
  rows: BarRow[];
}

export interface LayoutOptions {
  /** The viewBox width; the SVG is drawn at whatever width its box has. */
  width?: number;
  fontSize?: number;
  locale?: string;
}

/** Roughly how wide a text is, in the units of its font size (system fonts average about 0.6 em). */
const textWidth = (text: string, fontSize: number) => Array.from(text).length * fontSize * 0.6;

/**
 * The bars of a horizontal bar chart: each figure's label on a line of its own, its bar
 * below, scaled so the largest fills the width left after the longest value's text, and
 * the value just past the bar's end. A value above zero gets at least a sliver, so it
 * never looks like zero.
 */
export function layoutBars(set: FigureSet, options: LayoutOptions = {}): BarLayout {
  const width = options.width ?? 400;
  const fontSize = options.fontSize ?? 14;
  const barHeight = Math.round(fontSize * 1.4);
  const labelGap = Math.round(fontSize * 0.4);
  const rowGap = Math.round(fontSize * 0.9);
  const valueTexts = set.figures.map((figure) => formatValue(figure.value, set.unit, options.locale));
  const valueSpace = Math.ceil(Math.max(0, ...valueTexts.map((text) => textWidth(text, fontSize)))) + Math.round(fontSize * 0.5);
  const scale = linearScale(Math.max(0, ...set.figures.map((figure) => figure.value)), Math.max(fontSize, width - valueSpace));
  const maxLabel = Math.max(4, Math.floor(width / (fontSize * 0.6)));
  const rowHeight = fontSize + labelGap + barHeight + rowGap;
  const rows = set.figures.map((figure, index) => {
    const top = index * rowHeight;
    const barWidth = figure.value > 0 ? Math.max(2, scale(figure.value)) : 0;
    const barY = top + fontSize + labelGap;
    return {
      label: fitLabel(figure.label, maxLabel),
      valueText: valueTexts[index]!,
      labelY: top + fontSize - Math.round(fontSize * 0.2),
      barY,
      barWidth: round(barWidth),
      barHeight,
      valueX: round(barWidth + Math.round(fontSize * 0.4)),
      valueY: barY + barHeight / 2 + fontSize * 0.35,
    };
  });
  const height = rows.length === 0 ? 0 : rows.length * rowHeight - rowGap;
  return { width, height, fontSize, rows };
}

const round = (value: number) => Math.round(value * 10) / 10;
