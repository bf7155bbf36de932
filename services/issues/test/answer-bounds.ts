import { ISSUE_LIMITS, ISSUE_READ_LIMITS, SEARCH_LIMIT } from '@tracker/contracts';
import type { CommentRecord, HistoryRecord, IssueDetails, IssueRecord, IssueRef, LinkRecord, WorklogRecord } from '../src/domain/model';
import { issueDetailsJson, issueSummaryJson, listPageJson } from '../src/routes/json';

/**
 * The largest answers the limits allow, built from records at every limit, through the
 * same JSON mappers the routes use (docs/decisions.md: Limits). Every text is made of U+0001, the
 * character JSON writes longest (`\u0001`, 6 bytes); ids have 10 digits. Plain text
 * (1 byte a character) gives the `plain` figures.
 */
const MAX_ID = 2_147_483_647;
const AT = new Date('2026-11-24T12:00:00.000Z');
const LONGEST_POSITION = -0.0000012345678901234567;

const worst = (units: number, plain: boolean) => (plain ? 'x' : '\u0001').repeat(units);
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

function records(plain: boolean) {
  const text = (n: number) => worst(n, plain);
  const labels = Array.from({ length: ISSUE_LIMITS.labels }, () => text(ISSUE_LIMITS.label));
  const status = { id: MAX_ID, name: 'In progress', category: 'progress' as const };
  const issue: IssueRecord = {
    id: MAX_ID, workspaceId: MAX_ID, queueId: MAX_ID, key: `ABCDEFGHIJKL-${MAX_ID}`, title: text(ISSUE_LIMITS.title), description: text(ISSUE_LIMITS.description),
    statusId: MAX_ID, status, position: LONGEST_POSITION, assigneeId: MAX_ID, parentId: MAX_ID, priority: 'critical', type: text(ISSUE_LIMITS.type), labels,
    dueDate: '2026-12-31', estimateMinutes: ISSUE_LIMITS.estimateMinutes, spentMinutes: MAX_ID, version: MAX_ID, revision: MAX_ID, createdBy: MAX_ID, createdAt: AT, updatedAt: AT,
  };
  const ref: IssueRef = { id: MAX_ID, key: issue.key, queueId: MAX_ID, title: text(ISSUE_LIMITS.title), status, assigneeId: MAX_ID, priority: 'critical' };
  const comment: CommentRecord = { id: MAX_ID, issueId: MAX_ID, authorId: MAX_ID, body: text(ISSUE_LIMITS.comment), createdAt: AT };
  const worklog: WorklogRecord = { id: MAX_ID, issueId: MAX_ID, authorId: MAX_ID, minutes: 1440, description: text(ISSUE_LIMITS.worklogDescription), createdAt: AT };
  // The largest history entry: a change of all labels (a description keeps at most 1,000 characters, 6,000 bytes).
  const history: HistoryRecord = { field: 'labels', from: labels, to: labels, fromTruncated: false, toTruncated: false, actorId: MAX_ID, at: AT };
  const link: LinkRecord = { type: 'mentions', direction: 'outward', issue: ref, createdAt: AT };
  return { issue, ref, comment, worklog, history, link };
}

export function largestAnswers(plain: boolean) {
  const r = records(plain);
  const n = ISSUE_READ_LIMITS.embedded;
  const details: IssueDetails = {
    ...r.issue,
    comments: Array(n).fill(r.comment),
    worklogs: Array(n).fill(r.worklog),
    history: Array(n).fill(r.history),
    links: Array(n).fill(r.link),
    subtasks: Array(n).fill(r.ref),
    totals: { comments: 10_000, worklogs: 10_000, history: 10_000, links: 10_000, subtasks: 10_000 },
  };
  const page = ISSUE_READ_LIMITS.pageMax;
  const summary = { ...r.issue, description: worst(ISSUE_READ_LIMITS.searchDescription, plain), descriptionTruncated: true };
  return {
    read: bytes(issueDetailsJson(details)),
    commentPage: bytes(listPageJson('comments', { items: Array(page).fill(r.comment), total: 10_000, nextAfterId: MAX_ID })),
    historyPage: bytes(listPageJson('history', { items: Array(page).fill(r.history), total: 10_000, nextAfterId: MAX_ID })),
    searchRow: bytes(issueSummaryJson(summary)),
    search: bytes(Array(SEARCH_LIMIT).fill(issueSummaryJson(summary))),
  };
}

/** The figures services/issues/README.md and docs/decisions.md give (bytes). */
export const DOCUMENTED = {
  worst: { read: 21_992_171, commentPage: 15_005_702, historyPage: 3_021_702, searchRow: 37_028, search: 74_058_001 },
  plain: { read: 3_714_421, commentPage: 2_505_702, historyPage: 521_702, searchRow: 6_778, search: 13_558_001 },
} as const;
