import type { IssuePatch } from '../domain/issue-update.rules';
import type { CommentRecord, FieldChange, IssueFields, IssueRecord, StatusRecord, WorklogRecord } from '../domain/model';
import { Prisma } from '../generated/prisma/client';
import type { Client } from './prisma';
import { fromDateOnly, issueInclude, toIssueRecord, toStatusRecord } from './records';

/** Ancestor walks stop here, far beyond any real hierarchy (and any accidental loop). */
const MAX_DEPTH = 10_000;

const toJson = (value: unknown) => (value === null || value === undefined ? Prisma.DbNull : (value as Prisma.InputJsonValue));

/** API field names → columns, for the fields a PATCH may change. */
function issueData(values: IssuePatch) {
  return {
    ...(values.title !== undefined && { title: values.title }),
    ...(values.description !== undefined && { description: values.description }),
    ...(values.status_id !== undefined && { statusId: values.status_id }),
    ...(values.position !== undefined && { position: values.position }),
    ...(values.assignee_id !== undefined && { assigneeId: values.assignee_id }),
    ...(values.parent_id !== undefined && { parentId: values.parent_id }),
    ...(values.priority !== undefined && { priority: values.priority }),
    ...(values.type !== undefined && { type: values.type }),
    ...(values.labels !== undefined && { labels: values.labels }),
    ...(values.due_date !== undefined && { dueDate: fromDateOnly(values.due_date) }),
    ...(values.estimate_minutes !== undefined && { estimateMinutes: values.estimate_minutes }),
  };
}

export function issuesRepository(c: Client) {
  return {
    async findInWorkspace(workspaceId: number, id: number): Promise<IssueRecord | null> {
      const row = await c.issue.findFirst({ where: { id, workspaceId }, include: issueInclude });
      return row ? toIssueRecord(row) : null;
    },

    /**
     * The issue row locked until the transaction ends, so the version check and the
     * write are atomic. FOR NO KEY UPDATE is the lock the UPDATE itself takes: it
     * excludes other writers of the row but not foreign-key checks of rows that
     * reference it (a subtask or comment being added elsewhere), which FOR UPDATE
     * would block and could deadlock with.
     */
    async lock(id: number): Promise<IssueRecord> {
      await c.$queryRaw`SELECT id FROM issues WHERE id = ${id} FOR NO KEY UPDATE`;
      return toIssueRecord(await c.issue.findUniqueOrThrow({ where: { id }, include: issueInclude }));
    },

    /**
     * Hands out the queue's next issue number. The counter row stays locked until
     * commit, so concurrent creations in one queue get consecutive numbers and a
     * rolled-back creation's number is never seen by anyone.
     */
    async nextNumber(queueId: number): Promise<{ number: number; queueKey: string }> {
      const rows = await c.$queryRaw<Array<{ issue_counter: number; key: string }>>`
        UPDATE queues SET issue_counter = issue_counter + 1 WHERE id = ${queueId} RETURNING issue_counter, key`;
      return { number: rows[0]!.issue_counter, queueKey: rows[0]!.key };
    },

    async statusInQueue(queueId: number, statusId: number): Promise<StatusRecord | null> {
      const row = await c.status.findFirst({ where: { id: statusId, queueId } });
      return row ? toStatusRecord(row) : null;
    },

    async maxPosition(statusId: number, exceptIssueId?: number): Promise<number | null> {
      const result = await c.issue.aggregate({
        where: { statusId, ...(exceptIssueId ? { id: { not: exceptIssueId } } : {}) },
        _max: { position: true },
      });
      return result._max.position;
    },

    /**
     * Serialises parent changes within a workspace, so two concurrent PATCHes
     * cannot each pass the cycle check and together close a loop.
     */
    async lockHierarchy(workspaceId: number): Promise<void> {
      await c.$queryRaw`SELECT 1 FROM pg_advisory_xact_lock(hashtext('issues.hierarchy'), ${workspaceId}::int)`;
    },

    /** Parent, grandparent, ... of an issue. */
    async ancestorIds(id: number): Promise<number[]> {
      const rows = await c.$queryRaw<Array<{ id: number }>>`
        WITH RECURSIVE up(id, depth) AS (
          SELECT parent_id, 1 FROM issues WHERE id = ${id} AND parent_id IS NOT NULL
          UNION
          SELECT i.parent_id, up.depth + 1 FROM issues i JOIN up ON i.id = up.id
          WHERE i.parent_id IS NOT NULL AND up.depth < ${MAX_DEPTH}
        )
        SELECT id FROM up`;
      return rows.map((r) => r.id);
    },

    async create(input: IssueFields & { workspaceId: number; queueId: number; number: number; key: string; createdBy: number; at: Date }): Promise<IssueRecord> {
      const row = await c.issue.create({
        data: {
          ...issueData(input),
          workspaceId: input.workspaceId,
          queueId: input.queueId,
          number: input.number,
          key: input.key,
          createdBy: input.createdBy,
          createdAt: input.at,
          updatedAt: input.at,
        } as Prisma.IssueUncheckedCreateInput,
        include: issueInclude,
      });
      return toIssueRecord(row);
    },

    /** A PATCH that changed something: new values, next version and revision. */
    async update(id: number, values: IssuePatch, at: Date): Promise<IssueRecord> {
      const row = await c.issue.update({
        where: { id },
        data: { ...issueData(values), version: { increment: 1 }, revision: { increment: 1 }, updatedAt: at },
        include: issueInclude,
      });
      return toIssueRecord(row);
    },

    /**
     * A comment or worklog: the aggregate's revision grows (events stay ordered) and
     * so does `updated_at`, but not the API `version`. The update also locks the row.
     */
    async touch(id: number, at: Date, spentMinutes = 0): Promise<IssueRecord> {
      const row = await c.issue.update({
        where: { id },
        data: { revision: { increment: 1 }, updatedAt: at, spentMinutes: { increment: spentMinutes } },
        include: issueInclude,
      });
      return toIssueRecord(row);
    },

    async addHistory(issueId: number, actorId: number, changes: readonly FieldChange[], at: Date): Promise<void> {
      await c.historyEntry.createMany({
        data: changes.map((ch) => ({ issueId, actorId, at, field: ch.field, from: toJson(ch.from), to: toJson(ch.to) })),
      });
    },

    async addComment(issueId: number, authorId: number, body: string, at: Date): Promise<CommentRecord> {
      return c.comment.create({
        data: { issueId, authorId, body, createdAt: at },
        select: { id: true, issueId: true, authorId: true, body: true, createdAt: true },
      });
    },

    async addWorklog(issueId: number, authorId: number, minutes: number, description: string, at: Date): Promise<WorklogRecord> {
      return c.worklog.create({ data: { issueId, authorId, minutes, description, createdAt: at } });
    },

    /**
     * Records `mentions` links both ways to the issues of the workspace with these
     * keys (unknown keys and the issue itself are skipped). Idempotent. Targets are
     * linked in id order so concurrent writers take index locks in the same order.
     */
    async linkMentions(source: { id: number; workspaceId: number }, keys: string[], at: Date): Promise<void> {
      if (keys.length === 0) return;
      const targets = await c.issue.findMany({
        where: { workspaceId: source.workspaceId, key: { in: keys }, id: { not: source.id } },
        select: { id: true },
        orderBy: { id: 'asc' },
      });
      if (targets.length === 0) return;
      await c.issueLink.createMany({
        data: targets.flatMap((t) => [
          { sourceId: source.id, targetId: t.id, type: 'mentions', direction: 'outward', createdAt: at },
          { sourceId: t.id, targetId: source.id, type: 'mentions', direction: 'inward', createdAt: at },
        ]),
        skipDuplicates: true,
      });
    },

    /** Everything attached to an issue, oldest first; links and subtasks not yet filtered by access. */
    /** Every issue of every workspace, by id, with its comments' text, for the replica snapshot. */
    async page(afterId: number, limit: number) {
      const rows = await c.issue.findMany({ where: { id: { gt: afterId } }, orderBy: { id: 'asc' }, take: limit, include: issueInclude });
      const comments = await c.comment.findMany({
        where: { issueId: { in: rows.map((r) => r.id) } },
        orderBy: { id: 'asc' },
        select: { id: true, issueId: true, body: true },
      });
      const byIssue = new Map<number, Array<{ id: number; body: string }>>();
      for (const { id, issueId, body } of comments) byIssue.set(issueId, [...(byIssue.get(issueId) ?? []), { id, body }]);
      return rows.map((row) => ({ issue: toIssueRecord(row), comments: byIssue.get(row.id) ?? [] }));
    },
  };
}

export type IssuesRepository = ReturnType<typeof issuesRepository>;
