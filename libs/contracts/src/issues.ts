import { z } from 'zod';
import { Category, CATEGORY_MEANING, Id, text } from './queues';

export const Priority = z.enum(['low', 'normal', 'high', 'critical']);
export type Priority = z.infer<typeof Priority>;

/** Limits of an issue's fields and lists (docs/decisions.md, Limits, and the OpenAPI document). */
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
  /** Comments one issue may hold (422 `validation_failed` at `(body)` beyond). */
  commentsPerIssue: 5_000,
  /** Worklogs one issue may hold (422 `validation_failed` at `(body)` beyond). */
  worklogsPerIssue: 10_000,
} as const;

/**
 * What one issue read, one page of its lists and one search row may carry, so that no
 * answer grows with what users add to an issue (docs/decisions.md: Limits; services/issues/README.md).
 * A queue's permission history is embedded and paged by the same numbers.
 */
export const ISSUE_READ_LIMITS = {
  /** The newest comments, worklogs, history entries, links and subtasks GET /issues/{key} embeds, each (and permission changes GET /queues/{queue_id}/permissions). */
  embedded: 50,
  /** Items per page of GET /issues/{key}/{comments,worklogs,history,links,subtasks} and GET /queues/{queue_id}/permissions/history: at most (so no page is larger than a read), and by default. */
  pageMax: 50,
  pageDefault: 50,
  /** `*_total` and a page's `total` count up to this many (so counting costs as little as the reading). */
  counted: 10_000,
  /** Characters a history entry keeps of a longer text value (`from`, `to` of `description`). */
  historyText: 1_000,
  /** Characters of the description a search row carries. */
  searchDescription: 500,
} as const;

/** `YYYY-MM-DD`, a real calendar date from year 1 (Postgres has no year 0). */
export const DateOnly = z.iso.date().refine((value) => !value.startsWith('0000'), 'year must be 0001 or later');

const title = text(1, ISSUE_LIMITS.title).meta({ description: `One line saying what the issue is about, 1 to ${ISSUE_LIMITS.title} characters.`, examples: ['Login button misaligned'] });
const description = text(0, ISSUE_LIMITS.description).meta({
  description: `The issue text, at most ${ISSUE_LIMITS.description.toLocaleString('en-US')} characters. Naming another issue's key in it (such as WEB-1) links the two issues.`,
  examples: ['Reproduced in Firefox 128, see WEB-1.'],
});
const type = text(1, ISSUE_LIMITS.type).meta({ description: `Free-form kind of issue, 1 to ${ISSUE_LIMITS.type} characters.`, examples: ['bug'] });
const labels = z
  .array(text(1, ISSUE_LIMITS.label))
  .max(ISSUE_LIMITS.labels)
  .meta({
    description: `Labels, at most ${ISSUE_LIMITS.labels} of 1 to ${ISSUE_LIMITS.label} characters each. Duplicates are dropped on write (the first of each kept, in order); labels are compared case-sensitively (\`UI\` and \`ui\` are two labels).`,
    examples: [['frontend', 'urgent']],
  });
const estimate = z
  .number()
  .int()
  .min(0)
  .max(ISSUE_LIMITS.estimateMinutes)
  .meta({ description: `Estimated work in whole minutes, 0 to ${ISSUE_LIMITS.estimateMinutes.toLocaleString('en-US')}.`, examples: [90] });
const priority = Priority.meta({ description: 'Priority: `low`, `normal`, `high` or `critical`.', examples: ['high'] });
const assignee = Id.nullable().meta({ description: 'The id of an active user of the workspace to assign; null for nobody.', examples: [1] });
const parent = Id.nullable().meta({
  description: 'The id (not the key) of the parent issue, readable by the caller and in the same workspace; null for none. Must not make a cycle.',
  examples: [1],
});
const dueDate = DateOnly.nullable().meta({ description: 'Due date (YYYY-MM-DD), or null for none.', examples: ['2026-12-31'] });

/** POST /issues body. */
export const IssueCreate = z.strictObject({
  queue_id: Id.meta({ description: 'The queue to create the issue in; the caller needs `read-write` or `admin` on it.', examples: [1] }),
  title,
  description: description.default(''),
  assignee_id: assignee.default(null),
  parent_id: parent.default(null),
  priority: priority.default('normal'),
  type: type.default('task'),
  labels: labels.default([]),
  due_date: dueDate.default(null),
  estimate_minutes: estimate.default(0),
});
export type IssueCreate = z.infer<typeof IssueCreate>;

/**
 * PATCH /issues/{key} body. An absent field is left alone;
 * `null` clears `assignee_id`, `parent_id` or `due_date` and is invalid elsewhere.
 */
export const IssueUpdate = z.strictObject({
  version: Id.meta({
    description: 'The `version` of the issue as last read. If the issue changed since, nothing is changed and the answer is 409 `version_conflict` with the current version: re-read the issue, then reconsider the change.',
    examples: [1],
  }).optional(),
  title: title.optional(),
  description: description.optional(),
  status_id: Id.meta({ description: 'Moves the issue to this status, which must belong to the issue\'s queue.', examples: [2] }).optional(),
  position: z
    .number()
    .min(-ISSUE_LIMITS.position)
    .max(ISSUE_LIMITS.position)
    .meta({ description: 'Place of the issue inside its status (smaller first). A move without it puts the issue last.', examples: [1.5] })
    .optional(),
  assignee_id: assignee.optional(),
  parent_id: parent.optional(),
  priority: priority.optional(),
  type: type.optional(),
  labels: labels.optional(),
  due_date: dueDate.optional(),
  estimate_minutes: estimate.optional(),
});
export type IssueUpdate = z.infer<typeof IssueUpdate>;

/** POST /issues/{key}/comments body. */
export const CommentCreate = z.strictObject({
  body: text(1, ISSUE_LIMITS.comment).meta({
    description: 'The comment text, authored by the caller. Naming another issue\'s key links the two issues.',
    examples: ['Fixed in release 2.4; verified on staging.'],
  }),
});
export type CommentCreate = z.infer<typeof CommentCreate>;

/** POST /issues/{key}/worklogs body. */
export const WorklogCreate = z.strictObject({
  minutes: z.number().int().min(1).max(1440).meta({ description: 'Whole minutes of work, 1 to 1440 (a day).', examples: [45] }),
  description: text(0, ISSUE_LIMITS.worklogDescription)
    .meta({ description: `What the time was spent on, at most ${ISSUE_LIMITS.worklogDescription.toLocaleString('en-US')} characters.`, examples: ['Code review'] })
    .default(''),
});
export type WorklogCreate = z.infer<typeof WorklogCreate>;

const timestamp = z.iso.datetime();
const at = (what: string) => timestamp.meta({ description: `${what} (UTC).` });
const issueId = (what: string) => Id.meta({ description: what });

export const StatusRef = z.object({
  id: Id.meta({ description: 'The status id.' }),
  name: z.string().meta({ description: 'The status name.' }),
  category: Category.meta({ description: `The status category: ${CATEGORY_MEANING}.` }),
});

const issueKey = z.string().meta({ description: 'The issue key: its queue\'s key, a dash and its number in the queue.' });
const currentStatus = StatusRef.meta({ description: 'The current status, with its name and category.' });
const assigned = Id.nullable().meta({ description: 'The assigned user; null when nobody is.' });
const issuePriority = Priority.meta({ description: 'Priority: `low`, `normal`, `high` or `critical`.' });

/** An issue as search, create and update return it. */
export const Issue = z.object({
  id: issueId('The issue id (what `parent_id` names; paths name the key).'),
  key: issueKey,
  workspace_id: issueId('The workspace the issue belongs to.'),
  queue_id: issueId('The queue the issue belongs to.'),
  title: z.string().meta({ description: 'One line saying what the issue is about.' }),
  description: z.string().meta({ description: 'The issue text; may be empty.' }),
  status_id: issueId('The id of the current status (also in `status`).'),
  status: currentStatus,
  position: z.number().meta({ description: 'Place of the issue within its status, smaller first.' }),
  assignee_id: assigned,
  parent_id: Id.nullable().meta({ description: 'The id of the parent issue; null for none.' }),
  priority: issuePriority,
  type: z.string().meta({ description: 'Free-form kind of issue.' }),
  labels: z.array(z.string()).meta({ description: 'Labels, each once, in the order first given; compared case-sensitively.' }),
  due_date: z.iso.date().nullable().meta({ description: 'Due date (YYYY-MM-DD); null for none.' }),
  estimate_minutes: z.number().int().nonnegative().meta({ description: 'Estimated work in minutes.' }),
  spent_minutes: z.number().int().nonnegative().meta({ description: 'The minutes recorded by all the issue\'s worklogs, added up.' }),
  version: z
    .number()
    .int()
    .positive()
    .meta({ description: 'Grows by one with every change (1 when created). Send it back as `version` in an update to be protected against lost updates.' }),
  created_by: issueId('The user who created the issue.'),
  created_at: at('When the issue was created'),
  updated_at: at('When the issue last changed (any field, a comment or a worklog), or its creation'),
});
export type Issue = z.infer<typeof Issue>;

/** Another issue as links and subtasks show it. */
export const IssueRef = z.object({
  id: issueId('The other issue\'s id.'),
  key: issueKey,
  queue_id: issueId('Its queue.'),
  title: z.string().meta({ description: 'Its title.' }),
  status: currentStatus,
  assignee_id: assigned,
  priority: issuePriority,
});
export type IssueRef = z.infer<typeof IssueRef>;

export const Comment = z.object({
  id: issueId('The comment id.'),
  issue_id: issueId('The issue it belongs to.'),
  author_id: issueId('Who wrote it (the caller who added it).'),
  body: z.string().meta({ description: 'The comment text.' }),
  created_at: at('When it was added'),
});
export type Comment = z.infer<typeof Comment>;

export const Worklog = z.object({
  id: issueId('The worklog id.'),
  issue_id: issueId('The issue it belongs to.'),
  author_id: issueId('Who recorded it (the caller who added it).'),
  minutes: z.number().int().min(1).max(1440).meta({ description: 'Whole minutes of work, 1 to 1440.' }),
  description: z.string().meta({ description: 'What the time was spent on; may be empty.' }),
  created_at: at('When it was recorded'),
});
export type Worklog = z.infer<typeof Worklog>;

/**
 * The fields history records: `created` for the creation, then every field a PATCH may
 * change, in the order a PATCH writes its entries (services/issues, issue-update.rules.ts).
 */
export const HISTORY_FIELDS = [
  'created',
  'title',
  'description',
  'status_id',
  'position',
  'assignee_id',
  'parent_id',
  'priority',
  'type',
  'labels',
  'due_date',
  'estimate_minutes',
] as const;
export const HistoryField = z.enum(HISTORY_FIELDS);
export type HistoryField = z.infer<typeof HistoryField>;

/** A value history shows: what the recorded fields hold (null for a cleared one, and both sides of `created`). */
const historyValue = (side: 'from' | 'to') =>
  z.union([z.string(), z.number(), z.array(z.string()), z.null()]).meta({
    description:
      `The field's value ${side === 'from' ? 'before' : 'after'} the change, as the issue carries it: a string (title, description, priority, type, due_date), ` +
      `a number (status_id, position, assignee_id, parent_id, estimate_minutes), a list of strings (labels) or null (a cleared field; always for \`created\`).`,
  });
export type HistoryValue = string | number | string[] | null;

const cut = (side: 'from' | 'to') =>
  z.boolean().meta({ description: `Whether \`${side}\` is the first ${ISSUE_READ_LIMITS.historyText.toLocaleString('en-US')} characters of a longer text (history keeps no more).` });

/**
 * One changed field, or `field: "created"` (from and to null) for the creation. A text
 * value longer than ISSUE_READ_LIMITS.historyText characters is kept as its prefix of that
 * many characters, with `from_truncated` / `to_truncated` true.
 */
export const HistoryEntry = z.object({
  field: HistoryField.meta({ description: 'The field that changed, or `created` for the creation of the issue.' }),
  from: historyValue('from'),
  to: historyValue('to'),
  from_truncated: cut('from'),
  to_truncated: cut('to'),
  actor_id: issueId('Who made the change.'),
  at: at('When'),
});
export type HistoryEntry = z.infer<typeof HistoryEntry>;

/**
 * A linked issue, as IssueRef plus how it is linked. `outward`: this issue mentions
 * the other one; `inward`: the other one mentions this issue.
 */
export const IssueLink = IssueRef.extend({
  type: z.literal('mentions').meta({ description: 'How the issues are linked: `mentions`, one names the other\'s key in its description or a comment.' }),
  direction: z.enum(['outward', 'inward']).meta({ description: '`outward`: this issue mentions the other one; `inward`: the other one mentions this issue.' }),
  linked_at: at('When the link was made'),
});
export type IssueLink = z.infer<typeof IssueLink>;

const counted = ISSUE_READ_LIMITS.counted.toLocaleString('en-US');
/** A list a read embeds only the newest of (an issue's, a queue's permission history); GET …/`path` pages through all. */
export const embeddedList = (item: z.ZodType, what: string, path: string) =>
  z.array(item).max(ISSUE_READ_LIMITS.embedded).meta({
    description: `The newest ${ISSUE_READ_LIMITS.embedded} ${what} at most, oldest first; GET …/${path} pages through all.`,
  });
/** How many items such a list holds, counted up to ISSUE_READ_LIMITS.counted. */
export const listTotal = (what: string) =>
  z.number().int().min(0).max(ISSUE_READ_LIMITS.counted).meta({ description: `How many ${what} there are, counted up to ${counted}.` });

/**
 * GET /issues/{key}: the issue with the newest ISSUE_READ_LIMITS.embedded of each list
 * attached to it (each oldest first) and how many there are; the list endpoints page
 * through the rest.
 */
export const IssueDetails = Issue.extend({
  comments: embeddedList(Comment, 'comments', 'comments'),
  comments_total: listTotal('comments'),
  worklogs: embeddedList(Worklog, 'worklogs', 'worklogs'),
  worklogs_total: listTotal('worklogs'),
  history: embeddedList(HistoryEntry, 'history entries', 'history'),
  history_total: listTotal('history entries'),
  links: embeddedList(IssueLink, 'readable links', 'links'),
  links_total: listTotal('readable links'),
  subtasks: embeddedList(IssueRef, 'readable subtasks', 'subtasks'),
  subtasks_total: listTotal('readable subtasks'),
});
export type IssueDetails = z.infer<typeof IssueDetails>;

/**
 * An issue as search returns it: the fields of Issue, with `description` cut to its first
 * ISSUE_READ_LIMITS.searchDescription characters (GET /issues/{key} has all of it).
 */
export const IssueSummary = Issue.extend({
  description: z.string().meta({ description: `The first ${ISSUE_READ_LIMITS.searchDescription} characters of the description (GET /api/v1/issues/{key} has all).` }),
  description_truncated: z.boolean().meta({ description: 'Whether the description is longer than shown.' }),
});
export type IssueSummary = z.infer<typeof IssueSummary>;

/**
 * Query of GET /issues/{key}/{comments,worklogs,history,links,subtasks} and of
 * GET /queues/{queue_id}/permissions/history: keyset pages, oldest first. `after_id` is 0
 * for the first page, then the `next_after_id` of the last answer (the same paging as the
 * internal snapshot).
 */
export const ListPage = z.strictObject({
  after_id: z.coerce
    .number()
    .int()
    .min(0)
    .max(2_147_483_647)
    .default(0)
    .meta({ description: 'Where the page starts: 0 (the default) for the first page, then `next_after_id` of the previous page.', examples: [0] }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(ISSUE_READ_LIMITS.pageMax)
    .default(ISSUE_READ_LIMITS.pageDefault)
    .meta({ description: `Items per page, 1 to ${ISSUE_READ_LIMITS.pageMax} (default ${ISSUE_READ_LIMITS.pageDefault}).`, examples: [ISSUE_READ_LIMITS.pageDefault] }),
});
export type ListPage = z.infer<typeof ListPage>;

/** The answer to a ListPage query: at most `limit` items, the list's total, and where the next page starts. */
export const listPage = <T extends z.ZodType>(item: T, what: string, order = 'oldest first') =>
  z.object({
    items: z.array(item).max(ISSUE_READ_LIMITS.pageMax).meta({ description: `${what}, ${order}, at most \`limit\`.` }),
    total: listTotal(what.toLowerCase()),
    next_after_id: Id.nullable().meta({ description: 'The `after_id` of the next page; null on the last page.' }),
  });

export const CommentPage = listPage(Comment, 'Comments');
export const WorklogPage = listPage(Worklog, 'Worklogs');
export const HistoryPage = listPage(HistoryEntry, 'History entries');
export const LinkPage = listPage(IssueLink, 'Links the caller can read');
export const SubtaskPage = listPage(IssueRef, 'Subtasks the caller can read', 'by id');
