/**
 * The issues page's view: the filters a person picks, the address's query that holds
 * them (so a view can be shared and opened again), and the search body they ask the API
 * for. The address is read as a stranger wrote it: a value that is not one the page could
 * have written is ignored (the filter is off), and never sent to the API.
 */
import type { Schemas } from '@tracker/client';
import { PRIORITIES, type Priority } from './issue-fields';

export const CATEGORIES = ['open', 'progress', 'done'] as const;
export type Category = (typeof CATEGORIES)[number];

/** How the pages name each category to people (the API's names, in words). */
export const CATEGORY_NAMES: Record<Category, string> = { open: 'Open', progress: 'In progress', done: 'Done' };

/** The API's bounds on a search's text and label (libs/contracts filters.ts). */
export const SEARCH_MAX = 500;
export const LABEL_MAX = 100;

export interface IssueFilters {
  /** Free text; '' does not filter. */
  search: string;
  /** A queue by its key (upper-case), as people read it; null: every queue. */
  queue: string | null;
  category: Category | null;
  /** A user id; null: anyone. */
  assignee: number | null;
  mine: boolean;
  overdue: boolean;
  priority: Priority | null;
  /** One label, matched exactly; '' does not filter. */
  label: string;
}

export const NO_FILTERS: IssueFilters = Object.freeze({
  search: '',
  queue: null,
  category: null,
  assignee: null,
  mine: false,
  overdue: false,
  priority: null,
  label: '',
});

/** The query's parameter of each filter. */
const PARAM = { search: 'q', queue: 'queue', category: 'category', assignee: 'assignee', mine: 'mine', overdue: 'overdue', priority: 'priority', label: 'label' } as const;

const QUEUE_KEY = /^[A-Z][A-Z0-9_]{1,11}$/;

const oneOf = <T extends string>(values: readonly T[], given: string | null): T | null => {
  const lower = given?.trim().toLowerCase();
  return values.find((value) => value === lower) ?? null;
};

const flag = (given: string | null) => given === '1' || given === 'true';

const positiveId = (given: string | null): number | null => {
  if (!given || !/^[1-9][0-9]{0,15}$/.test(given)) return null;
  const id = Number(given);
  return Number.isSafeInteger(id) ? id : null;
};

const boundedText = (given: string | null, max: number) => {
  const text = given?.trim() ?? '';
  return text.length <= max ? text : '';
};

/** The filters an address's query holds; anything unreadable is left off. */
export function filtersFromQuery(query: string | URLSearchParams): IssueFilters {
  const params = typeof query === 'string' ? new URLSearchParams(query) : query;
  const queue = params.get(PARAM.queue)?.trim().toUpperCase() ?? '';
  return {
    search: boundedText(params.get(PARAM.search), SEARCH_MAX),
    queue: QUEUE_KEY.test(queue) ? queue : null,
    category: oneOf(CATEGORIES, params.get(PARAM.category)),
    assignee: positiveId(params.get(PARAM.assignee)),
    mine: flag(params.get(PARAM.mine)),
    overdue: flag(params.get(PARAM.overdue)),
    priority: oneOf(PRIORITIES, params.get(PARAM.priority)),
    label: boundedText(params.get(PARAM.label), LABEL_MAX),
  };
}

/** The query that holds the filters: only those that filter, always in the same order. */
export function queryFromFilters(filters: IssueFilters): URLSearchParams {
  const params = new URLSearchParams();
  const search = filters.search.trim();
  const label = filters.label.trim();
  if (search) params.set(PARAM.search, search);
  if (filters.queue) params.set(PARAM.queue, filters.queue);
  if (filters.category) params.set(PARAM.category, filters.category);
  if (filters.assignee !== null) params.set(PARAM.assignee, String(filters.assignee));
  if (filters.mine) params.set(PARAM.mine, '1');
  if (filters.overdue) params.set(PARAM.overdue, '1');
  if (filters.priority) params.set(PARAM.priority, filters.priority);
  if (label) params.set(PARAM.label, label);
  return params;
}

export const isFiltered = (filters: IssueFilters) => queryFromFilters(filters).toString() !== '';

export interface KnownQueue {
  id: number;
  key: string;
}

/**
 * The filters as this person can use them: a queue they cannot see (or that does not
 * exist) and a user who is not in the workspace are dropped, and said to be (`ignored`),
 * so the page can tell them why the view is wider than its address. Until the lists are
 * there (null), nothing is dropped.
 */
export function applicableFilters(
  filters: IssueFilters,
  queues: readonly KnownQueue[] | null,
  userIds: readonly number[] | null,
): { filters: IssueFilters; ignored: Array<'queue' | 'assignee'> } {
  const ignored: Array<'queue' | 'assignee'> = [];
  let applicable = filters;
  if (filters.queue && queues && !queues.some((queue) => queue.key.toUpperCase() === filters.queue)) {
    applicable = { ...applicable, queue: null };
    ignored.push('queue');
  }
  if (filters.assignee !== null && userIds && !userIds.includes(filters.assignee)) {
    applicable = { ...applicable, assignee: null };
    ignored.push('assignee');
  }
  return { filters: applicable, ignored };
}

/**
 * The search body (POST /api/v1/issues/search) of the filters: only the filters that
 * filter are sent. The queue is named by its key in the address and by its id to the
 * API; a key not among `queues` is not sent (the API would refuse it with 403).
 */
export function searchBody(filters: IssueFilters, queues: readonly KnownQueue[]): Schemas['Filters'] {
  const body: Schemas['Filters'] = {};
  const search = filters.search.trim();
  const label = filters.label.trim();
  const queue = filters.queue ? queues.find((known) => known.key.toUpperCase() === filters.queue) : undefined;
  if (search) body.search = search;
  if (queue) body.queue_ids = [queue.id];
  if (filters.category) body.category = filters.category;
  if (filters.assignee !== null) body.assignee_ids = [filters.assignee];
  if (filters.mine) body.mine = true;
  if (filters.overdue) body.overdue = true;
  if (filters.priority) body.priority = filters.priority;
  if (label) body.label = label;
  return body;
}

/** Whether an issue is overdue as the API counts it: due before today (UTC) and not done. */
export function isOverdue(issue: { due_date: string | null; status: { category: Category } }, now: Date): boolean {
  if (!issue.due_date || issue.status.category === 'done') return false;
  return issue.due_date < now.toISOString().slice(0, 10);
}

/** What the search answer's headers say of its size: how many matched, and whether the 2000 cap cut the list. */
export function searchSize(headers: { get: (name: string) => string | null }, shown: number): { total: number; truncated: boolean } {
  const total = Number(headers.get('X-Total-Count'));
  return {
    total: Number.isSafeInteger(total) && total >= shown ? total : shown,
    truncated: (headers.get('X-Truncated') ?? headers.get('Search-Truncated')) === 'true',
  };
}
