/**
 * The filters of statistics and dashboard widgets, between the three shapes they take:
 * the API's Filters body, the form a person edits (one value per control), and the query
 * string that keeps the statistics page's view in its address. Pure: no React, no DOM.
 */
import type { Schemas } from '@tracker/client';
import { isPriority, type Priority } from './issue-fields';
import { listInWords } from './live-issue';

export type Filters = Schemas['Filters'];
export type Category = 'open' | 'progress' | 'done';

export const CATEGORIES: ReadonlyArray<{ value: Category; label: string }> = [
  { value: 'open', label: 'Open' },
  { value: 'progress', label: 'In progress' },
  { value: 'done', label: 'Done' },
];

/** The API's bounds on a filter (libs/contracts FILTER_LIMITS). */
export const FILTER_LIMITS = { ids: 100, search: 500, label: 100 } as const;
const MAX_ID = 2_147_483_647;

/**
 * The filters as a form holds them. An id list is one text value: `''` does not filter
 * (the list is absent), `'none'` is the empty list (selects nothing), `'3'` or `'3,7'`
 * the ids; so a widget saved with several queues keeps them through an edit.
 */
export interface FilterForm {
  search: string;
  queues: string;
  statuses: string;
  assignees: string;
  category: '' | Category;
  priority: '' | Priority;
  label: string;
  mine: boolean;
  overdue: boolean;
}

export const EMPTY_FORM: FilterForm = { search: '', queues: '', statuses: '', assignees: '', category: '', priority: '', label: '', mine: false, overdue: false };

export const NO_IDS = 'none';

/** An id list as a form value. */
export function idsToField(ids: readonly number[] | undefined): string {
  if (ids === undefined) return '';
  if (ids.length === 0) return NO_IDS;
  return ids.join(',');
}

/** A form value as an id list: undefined when it does not filter or is not a list of ids. */
export function fieldToIds(value: string): number[] | undefined {
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (trimmed === NO_IDS) return [];
  const parts = trimmed.split(',');
  if (parts.length > FILTER_LIMITS.ids) return undefined;
  const ids: number[] = [];
  for (const part of parts) {
    if (!/^[1-9]\d{0,9}$/.test(part.trim())) return undefined;
    const id = Number(part.trim());
    if (id > MAX_ID) return undefined;
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

const isCategory = (value: unknown): value is Category => CATEGORIES.some((c) => c.value === value);

/** The API body of a form: only what filters is sent (texts trimmed, blanks left out). */
export function filtersFromForm(form: FilterForm): Filters {
  const filters: Filters = {};
  const search = form.search.trim();
  if (search) filters.search = search;
  const queues = fieldToIds(form.queues);
  if (queues) filters.queue_ids = queues;
  const statuses = fieldToIds(form.statuses);
  if (statuses) filters.status_ids = statuses;
  const assignees = fieldToIds(form.assignees);
  if (assignees) filters.assignee_ids = assignees;
  if (form.mine) filters.mine = true;
  if (form.priority) filters.priority = form.priority;
  if (form.category) filters.category = form.category;
  if (form.overdue) filters.overdue = true;
  const label = form.label.trim();
  if (label) filters.label = label;
  return filters;
}

/** The form of the API's filters (a saved widget's, with its defaults filled in or not). */
export function formFromFilters(filters: Partial<Filters> | undefined): FilterForm {
  const f = filters ?? {};
  return {
    search: f.search ?? '',
    queues: idsToField(f.queue_ids),
    statuses: idsToField(f.status_ids),
    assignees: idsToField(f.assignee_ids),
    category: isCategory(f.category) ? f.category : '',
    priority: isPriority(f.priority) ? f.priority : '',
    label: f.label ?? '',
    mine: f.mine === true,
    overdue: f.overdue === true,
  };
}

/** Two filters select the same issues (the same body once normalised). */
export function sameFilters(a: Partial<Filters> | undefined, b: Partial<Filters> | undefined): boolean {
  return JSON.stringify(filtersFromForm(formFromFilters(a))) === JSON.stringify(filtersFromForm(formFromFilters(b)));
}

/** The groupings of the statistics page: what the figures are counted by. */
export const GROUPS = [
  { value: 'statuses', label: 'Status category' },
  { value: 'queues', label: 'Queue' },
  { value: 'assignees', label: 'Assignee' },
  { value: 'time', label: 'Time: estimated and recorded' },
] as const;
export type Group = (typeof GROUPS)[number]['value'];
export const DEFAULT_GROUP: Group = 'statuses';

/** The query-string names of the statistics page's view. */
const KEYS = { search: 'q', queues: 'queue', statuses: 'status', assignees: 'assignee', category: 'category', priority: 'priority', label: 'label', mine: 'mine', overdue: 'overdue', group: 'group' } as const;

export interface StatisticsView {
  form: FilterForm;
  group: Group;
}

/** A queue as the address names it: by its key, as /issues does. */
export type QueueKey = Pick<Schemas['Queue'], 'id' | 'key'>;

/** The address's queues as an id list: each by its key (any case), or by its id as older addresses have it; else none. */
function queueIdsOf(value: string, queues: readonly QueueKey[]): number[] | undefined {
  if (value.trim() === NO_IDS) return [];
  const ids: number[] = [];
  for (const part of value.split(',')) {
    const key = part.trim().toUpperCase();
    const id = queues.find((queue) => queue.key.toUpperCase() === key)?.id ?? fieldToIds(part)?.[0];
    if (id === undefined) return undefined;
    if (!ids.includes(id)) ids.push(id);
  }
  return ids.length > FILTER_LIMITS.ids ? undefined : ids;
}

/** The view an address asks for (its queues named among `queues`); anything malformed in it is dropped, never sent. */
export function viewFromQuery(search: string | URLSearchParams, queues: readonly QueueKey[]): StatisticsView {
  const params = typeof search === 'string' ? new URLSearchParams(search) : search;
  const text = (key: string, max: number) => {
    const value = (params.get(key) ?? '').trim();
    return value.length <= max ? value : '';
  };
  const ids = (key: string) => idsToField(fieldToIds(params.get(key) ?? ''));
  const flag = (key: string) => ['1', 'true', 'yes'].includes((params.get(key) ?? '').toLowerCase());
  const category = params.get(KEYS.category);
  const priority = params.get(KEYS.priority);
  const group = params.get(KEYS.group);
  return {
    form: {
      search: text(KEYS.search, FILTER_LIMITS.search),
      queues: params.get(KEYS.queues)?.trim() ? idsToField(queueIdsOf(params.get(KEYS.queues)!, queues)) : '',
      statuses: ids(KEYS.statuses),
      assignees: ids(KEYS.assignees),
      category: isCategory(category) ? category : '',
      priority: isPriority(priority) ? priority : '',
      label: text(KEYS.label, FILTER_LIMITS.label),
      mine: flag(KEYS.mine),
      overdue: flag(KEYS.overdue),
    },
    group: GROUPS.some((g) => g.value === group) ? (group as Group) : DEFAULT_GROUP,
  };
}

/** The address's query for a view: only what differs from the defaults, in a stable order; queues by their key. */
export function queryFromView(view: StatisticsView, queues: readonly QueueKey[]): URLSearchParams {
  const params = new URLSearchParams();
  const filters = filtersFromForm(view.form);
  if (filters.search) params.set(KEYS.search, filters.search);
  if (filters.queue_ids) {
    const keys = filters.queue_ids.map((id) => queues.find((queue) => queue.id === id)?.key ?? String(id));
    params.set(KEYS.queues, keys.length ? keys.join(',') : NO_IDS);
  }
  if (filters.status_ids) params.set(KEYS.statuses, idsToField(filters.status_ids));
  if (filters.assignee_ids) params.set(KEYS.assignees, idsToField(filters.assignee_ids));
  if (filters.category) params.set(KEYS.category, filters.category);
  if (filters.priority) params.set(KEYS.priority, filters.priority);
  if (filters.label) params.set(KEYS.label, filters.label);
  if (filters.mine) params.set(KEYS.mine, '1');
  if (filters.overdue) params.set(KEYS.overdue, '1');
  if (view.group !== DEFAULT_GROUP) params.set(KEYS.group, view.group);
  return params;
}

/** How to call the queues, statuses and people a filter names (ids the caller cannot name get a neutral word). */
export interface Names {
  queue: (id: number) => string | undefined;
  status: (id: number) => string | undefined;
  user: (id: number) => string | undefined;
}

/** "A", "A or B", "A, B or C". */
const either = (words: readonly string[]): string => listInWords(words, 'or');

const named = (ids: readonly number[], name: (id: number) => string | undefined, fallback: string) => either(ids.map((id) => name(id) ?? `${fallback} ${id}`));

/**
 * The filters in words, to follow what is counted: "in OPS, of high priority, overdue".
 * Empty when nothing filters.
 */
export function describeFilters(filters: Partial<Filters> | undefined, names: Names): string {
  const f = filtersFromForm(formFromFilters(filters));
  const parts: string[] = [];
  if (f.queue_ids) parts.push(f.queue_ids.length ? `in ${named(f.queue_ids, names.queue, 'queue')}` : 'in no queue');
  if (f.status_ids) parts.push(f.status_ids.length ? `with status ${named(f.status_ids, names.status, 'status')}` : 'with no status');
  if (f.category) parts.push(`with status category ${CATEGORIES.find((c) => c.value === f.category)!.label}`);
  if (f.assignee_ids) parts.push(f.assignee_ids.length ? `assigned to ${named(f.assignee_ids, names.user, 'user')}` : 'assigned to nobody listed');
  if (f.mine) parts.push('assigned to me');
  if (f.priority) parts.push(`of ${f.priority} priority`);
  if (f.label) parts.push(`labelled “${f.label}”`);
  if (f.overdue) parts.push('overdue');
  if (f.search) parts.push(`matching “${f.search}”`);
  return parts.join(', ');
}

/** Why figures could not be had, in words: a problem's `code` (and `detail` for the rest). */
export function statisticsProblem(problem: { status: number; code: string; detail: string }): string {
  switch (problem.code) {
    case 'forbidden':
      return 'These filters name a queue you cannot see (or one that does not exist). Choose another queue.';
    case 'statistics_unavailable':
      return 'Statistics are unavailable for a moment, while they are brought up to date. Try again shortly.';
    case 'validation_failed':
      return `These filters are not valid: ${problem.detail}`;
    default:
      return problem.detail;
  }
}
