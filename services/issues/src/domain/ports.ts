import type { QueueSettings, SearchCriteria } from '@tracker/contracts';
import type { EventEnvelope } from '@tracker/events';
import type { IdempotentRequests, Once } from '@tracker/kit';
import type { HistoryChange } from './history.rules';
import type { IssuePatch } from './issue-update.rules';
import type {
  CommentRecord,
  CommentTextRecord,
  IssueDetails,
  IssueFields,
  IssueListName,
  IssueLists,
  IssueRecord,
  IssueSummaryRecord,
  ListPageOf,
  QueueRecord,
  StatusRecord,
  WorklogRecord,
} from './model';

/**
 * The ports of the use cases: what they need from storage, declared here so the domain
 * depends on no implementation; the repositories of src/data-access implement them.
 */

/** Port: queues and their statuses. */
export interface QueuesRepository {
  listInWorkspace(workspaceId: number, ids?: number[]): Promise<QueueRecord[]>;
  findInWorkspace(workspaceId: number, id: number): Promise<QueueRecord | null>;
  idsInWorkspace(workspaceId: number, ids: number[]): Promise<number[]>;
  statuses(workspaceId: number, queueIds?: number[]): Promise<StatusRecord[]>;
  /** null when the workspace already has a queue with this key. */
  create(input: {
    workspaceId: number;
    key: string;
    name: string;
    description: string;
    statuses: ReadonlyArray<Pick<StatusRecord, 'name' | 'category' | 'position'>>;
  }): Promise<QueueRecord | null>;
  lock(workspaceId: number, id: number): Promise<QueueRecord | null>;
  page(afterId: number, limit: number): Promise<QueueRecord[]>;
  update(id: number, changes: QueueSettings): Promise<QueueRecord>;
}

/** A new issue's row: its fields but the place (the insert puts it at the end of its status), and what the creation decided. */
export type NewIssueRow = Omit<IssueFields, 'position'> & { workspaceId: number; queueId: number; number: number; key: string; createdBy: number; at: Date };

/** Port: issues and what is written to them (comments, worklogs, history, mention links). */
export interface IssuesRepository {
  findInWorkspace(workspaceId: number, id: number): Promise<IssueRecord | null>;
  lock(id: number): Promise<IssueRecord>;
  /** The queue's next issue number and key, with the status `statusId` (of that queue) locked for the end position read next. */
  nextNumberLockingStatus(queueId: number, statusId: number): Promise<{ number: number; queueKey: string }>;
  statusInQueue(queueId: number, statusId: number): Promise<StatusRecord | null>;
  /** The status locked, then its largest position: where a write that ends there takes its turn. */
  lockedMaxPosition(statusId: number, exceptIssueId?: number): Promise<number | null>;
  lockHierarchy(workspaceId: number): Promise<void>;
  ancestorIds(id: number): Promise<number[]>;
  /** The issue at the end of its status (whose lock the transaction holds), with its "created" history entry. */
  create(input: NewIssueRow): Promise<IssueRecord>;
  /** The changed values, and the changes' history entries (under the fields' API names). */
  update(id: number, values: IssuePatch, history: { actorId: number; changes: readonly HistoryChange[] }, at: Date): Promise<IssueRecord>;
  touch(id: number, at: Date, spentMinutes?: number): Promise<IssueRecord>;
  /** The comment, or null (nothing written) where the issue, locked by this transaction, holds `cap` already. */
  addComment(issueId: number, authorId: number, body: string, at: Date, cap: number): Promise<CommentRecord | null>;
  /** The worklog, or null (nothing written) where the issue, locked by this transaction, holds `cap` already. */
  addWorklog(issueId: number, authorId: number, minutes: number, description: string, at: Date, cap: number): Promise<WorklogRecord | null>;
  linkMentions(source: { id: number; workspaceId: number }, keys: string[], at: Date): Promise<void>;
  page(afterId: number, limit: number): Promise<{ issues: IssueRecord[]; more: boolean }>;
  commentsPage(afterId: number, limit: number): Promise<{ comments: CommentTextRecord[]; more: boolean }>;
}

/** Port: integration events, written in the caller's transaction. */
export interface OutboxRepository {
  append(...events: EventEnvelope[]): Promise<void>;
}

/** Port: the issue read (an issue, the newest of its lists, and pages of each list). */
export interface IssueReadsRepository {
  findByKey(workspaceId: number, key: string): Promise<IssueRecord | null>;
  /** The issue with its attachments (links and subtasks only in `readable` queues; null: all), in one round trip. */
  findWithAttachments(workspaceId: number, key: string, readable: number[] | null): Promise<IssueDetails | null>;
  page<L extends IssueListName>(name: L, id: number, afterId: number, limit: number, readable: number[] | null): Promise<ListPageOf<IssueLists[L]>>;
}

/** Port: issue search. */
export interface SearchRepository {
  search(criteria: SearchCriteria): Promise<IssueSummaryRecord[]>;
}

/** The repositories usable inside a transaction. */
export interface Repositories {
  queues: QueuesRepository;
  issues: IssuesRepository;
  outbox: OutboxRepository;
}

/** The repositories over the pool, the same ones inside one transaction, and the reads. */
export interface Store extends Repositories {
  idempotentRequests: IdempotentRequests;
  reads: IssueReadsRepository;
  search: SearchRepository;
  /** One transaction; with `once` (an Idempotency-Key), claimed and answered inside it. */
  transaction<T>(work: (tx: Repositories) => Promise<T>, once?: Once<T>): Promise<T>;
  /** Reads that must see one state of the database (REPEATABLE READ, read only). */
  snapshot<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
}
