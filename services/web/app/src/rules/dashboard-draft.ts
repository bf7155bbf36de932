/**
 * A dashboard being edited: the widgets as the page holds them until "Save dashboard",
 * what changed against the saved one, what is sent, whether someone saved in between,
 * and refusals in words. Pure: no React, no DOM.
 */
import type { Schemas } from '@tracker/client';
import type { WidgetType } from './chart';
import { filtersFromForm, formFromFilters, type Filters } from './statistics-filters';

export type Dashboard = Schemas['Dashboard'];
export type DashboardInput = Schemas['DashboardInput'];

/** The API's bounds on a dashboard (libs/contracts DASHBOARD_LIMITS). */
export const DASHBOARD_LIMITS = { name: 500, widgets: 30, title: 200 } as const;

export interface DraftWidget {
  /** The page's own name for the widget, stable while it is edited (saved ones: `saved-<index>`). */
  key: string;
  type: WidgetType;
  title: string;
  filters: Filters;
}

export interface Draft {
  name: string;
  widgets: DraftWidget[];
}

export const savedKey = (index: number) => `saved-${index}`;

/** The draft of a dashboard as saved. */
export function draftOf(dashboard: Pick<Dashboard, 'name' | 'widgets'>): Draft {
  return {
    name: dashboard.name,
    widgets: dashboard.widgets.map((widget, index) => ({ key: savedKey(index), type: widget.type, title: widget.title, filters: filtersFromForm(formFromFilters(widget.filters)) })),
  };
}

/** The PUT (or POST) body of a draft: the name and titles trimmed, each widget's filters as their form sends them. */
export function inputOf(draft: Draft): DashboardInput {
  return {
    name: draft.name.trim(),
    widgets: draft.widgets.map((widget) => ({ type: widget.type, title: widget.title.trim(), filters: filtersFromForm(formFromFilters(widget.filters)) })),
  };
}

const sameWidget = (a: DashboardInput['widgets'][number], b: DashboardInput['widgets'][number] | undefined) => JSON.stringify(a) === JSON.stringify(b);

/** Whether saving the draft would change the saved dashboard. */
export function isChanged(saved: Pick<Dashboard, 'name' | 'widgets'>, draft: Draft): boolean {
  return JSON.stringify(inputOf(draftOf(saved))) !== JSON.stringify(inputOf(draft));
}

/** The keys of the draft's widgets that differ from (or are not among) the saved ones. */
export function unsavedWidgets(saved: Pick<Dashboard, 'name' | 'widgets'>, draft: Draft): Set<string> {
  const savedInput = inputOf(draftOf(saved)).widgets;
  const draftInput = inputOf(draft).widgets;
  const unsaved = new Set<string>();
  draft.widgets.forEach((widget, index) => {
    const match = /^saved-(\d+)$/.exec(widget.key);
    if (!match || !sameWidget(draftInput[index]!, savedInput[Number(match[1])])) unsaved.add(widget.key);
  });
  return unsaved;
}

/** What is wrong with a dashboard name, in words; '' when nothing. */
export function nameProblem(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) return 'Give the dashboard a name.';
  if (trimmed.length > DASHBOARD_LIMITS.name) return `A dashboard name has at most ${DASHBOARD_LIMITS.name} characters.`;
  return '';
}

/** What is wrong with a widget title, in words; '' when nothing (a title may be empty). */
export function titleProblem(title: string): string {
  if (title.trim().length > DASHBOARD_LIMITS.title) return `A widget title has at most ${DASHBOARD_LIMITS.title} characters.`;
  return '';
}

/**
 * Whether the dashboard changed since the page read it: `gone` (deleted from view, or it
 * now names a queue the caller cannot see), `changed` (saved again since: saving now would
 * overwrite that), or `same`. The API has no version for dashboards; `updated_at` moves
 * with every save.
 */
export function staleness(readUpdatedAt: string, current: Pick<Dashboard, 'updated_at'> | undefined): 'gone' | 'changed' | 'same' {
  if (!current) return 'gone';
  return current.updated_at === readUpdatedAt ? 'same' : 'changed';
}

export interface ProblemLike {
  status: number;
  code: string;
  detail: string;
  errors?: Array<{ path: string; message: string }>;
}

/** A refused save, in words. */
export function saveProblem(problem: ProblemLike): string {
  switch (problem.code) {
    case 'forbidden':
      return 'This dashboard could not be saved: only its owner may change it, and its widgets may name only queues you can see.';
    case 'not_found':
      return 'This dashboard could not be saved: it no longer exists, or it now shows a queue you cannot see.';
    case 'validation_failed': {
      const first = problem.errors?.[0];
      return first ? `This dashboard could not be saved: ${first.path ? `${first.path}: ` : ''}${first.message}.` : `This dashboard could not be saved: ${problem.detail}`;
    }
    case 'statistics_unavailable':
      return 'Dashboards are unavailable for a moment. Try saving again shortly.';
    default:
      return `This dashboard could not be saved: ${problem.detail}`;
  }
}

/** The id in a dashboard's address, or null when it cannot name one (the page is then "not found"). */
export function dashboardIdOf(segment: string): number | null {
  if (!/^[1-9]\d{0,9}$/.test(segment)) return null;
  const id = Number(segment);
  return id <= 2_147_483_647 ? id : null;
}
