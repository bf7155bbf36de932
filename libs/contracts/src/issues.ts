import { z } from 'zod';
import { Category, Id, text } from './queues';

export const Priority = z.enum(['low', 'normal', 'high', 'critical']);
export type Priority = z.infer<typeof Priority>;

/** Limits where the spec is silent (decisions.md, plus the bounds this service chose). */
export const ISSUE_LIMITS = {
  title: 500,
  description: 100_000,
  labels: 50,
  label: 100,
  type: 50,
  estimateMinutes: 1_000_000,
  position: 1e15,
  comment: 50_000,
  worklogDescription: 10_000,
} as const;

/** `YYYY-MM-DD`, a real calendar date from year 1 (Postgres has no year 0). */
export const DateOnly = z.iso.date().refine((value) => !value.startsWith('0000'), 'year must be 0001 or later');

const title = text(1, ISSUE_LIMITS.title);
const description = text(0, ISSUE_LIMITS.description);
const type = text(1, ISSUE_LIMITS.type);
const labels = z.array(text(1, ISSUE_LIMITS.label)).max(ISSUE_LIMITS.labels);
const estimate = z.number().int().min(0).max(ISSUE_LIMITS.estimateMinutes);

/** POST /issues body (spec: IssueCreate). */
export const IssueCreate = z.strictObject({
  queue_id: Id,
  title,
  description: description.default(''),
  assignee_id: Id.nullable().default(null),
  parent_id: Id.nullable().default(null),
  priority: Priority.default('normal'),
  type: type.default('task'),
  labels: labels.default([]),
  due_date: DateOnly.nullable().default(null),
  estimate_minutes: estimate.default(0),
});
export type IssueCreate = z.infer<typeof IssueCreate>;

/**
 * PATCH /issues/{key} body (spec: IssueUpdate). An absent field is left alone;
 * `null` clears `assignee_id`, `parent_id` or `due_date` and is invalid elsewhere.
 */
export const IssueUpdate = z.strictObject({
  version: Id.optional(),
  title: title.optional(),
  description: description.optional(),
  status_id: Id.optional(),
  position: z.number().min(-ISSUE_LIMITS.position).max(ISSUE_LIMITS.position).optional(),
  assignee_id: Id.nullable().optional(),
  parent_id: Id.nullable().optional(),
  priority: Priority.optional(),
  type: type.optional(),
  labels: labels.optional(),
  due_date: DateOnly.nullable().optional(),
  estimate_minutes: estimate.optional(),
});
export type IssueUpdate = z.infer<typeof IssueUpdate>;

/** POST /issues/{key}/comments body (spec: Comment). */
export const CommentCreate = z.strictObject({ body: text(1, ISSUE_LIMITS.comment) });
export type CommentCreate = z.infer<typeof CommentCreate>;

/** POST /issues/{key}/worklogs body (spec: Worklog). */
export const WorklogCreate = z.strictObject({
  minutes: z.number().int().min(1).max(1440),
  description: text(0, ISSUE_LIMITS.worklogDescription).default(''),
});
export type WorklogCreate = z.infer<typeof WorklogCreate>;

const timestamp = z.iso.datetime();
export const StatusRef = z.object({ id: Id, name: z.string(), category: Category });

/** An issue as search, create and update return it. */
export const Issue = z.object({
  id: Id,
  key: z.string(),
  workspace_id: Id,
  queue_id: Id,
  title: z.string(),
  description: z.string(),
  status_id: Id,
  status: StatusRef,
  position: z.number(),
  assignee_id: Id.nullable(),
  parent_id: Id.nullable(),
  priority: Priority,
  type: z.string(),
  labels: z.array(z.string()),
  due_date: z.iso.date().nullable(),
  estimate_minutes: z.number().int().nonnegative(),
  spent_minutes: z.number().int().nonnegative(),
  version: z.number().int().positive(),
  created_by: Id,
  created_at: timestamp,
  updated_at: timestamp,
});
export type Issue = z.infer<typeof Issue>;

/** Another issue as links and subtasks show it. */
export const IssueRef = z.object({
  id: Id,
  key: z.string(),
  queue_id: Id,
  title: z.string(),
  status: StatusRef,
  assignee_id: Id.nullable(),
  priority: Priority,
});
export type IssueRef = z.infer<typeof IssueRef>;

export const Comment = z.object({ id: Id, issue_id: Id, author_id: Id, body: z.string(), created_at: timestamp });
export type Comment = z.infer<typeof Comment>;

export const Worklog = z.object({
  id: Id,
  issue_id: Id,
  author_id: Id,
  minutes: z.number().int().min(1).max(1440),
  description: z.string(),
  created_at: timestamp,
});
export type Worklog = z.infer<typeof Worklog>;

/** One changed field, or `field: "created"` (from and to null) for the creation. */
export const HistoryEntry = z.object({ field: z.string(), from: z.unknown(), to: z.unknown(), actor_id: Id, at: timestamp });
export type HistoryEntry = z.infer<typeof HistoryEntry>;

/**
 * A linked issue, as IssueRef plus how it is linked. `outward`: this issue mentions
 * the other one; `inward`: the other one mentions this issue.
 */
export const IssueLink = IssueRef.extend({
  type: z.literal('mentions'),
  direction: z.enum(['outward', 'inward']),
  linked_at: timestamp,
});
export type IssueLink = z.infer<typeof IssueLink>;

/** GET /issues/{key}: the issue with everything attached to it, each list oldest first. */
export const IssueDetails = Issue.extend({
  comments: z.array(Comment),
  worklogs: z.array(Worklog),
  history: z.array(HistoryEntry),
  links: z.array(IssueLink),
  subtasks: z.array(IssueRef),
});
export type IssueDetails = z.infer<typeof IssueDetails>;
