import type { IssuesRepository, NewIssueRow } from '../domain/ports';
import type { HistoryChange } from '../domain/history.rules';
import { PATCHABLE_FIELDS, type IssuePatch } from '../domain/issue-update.rules';
import type { CommentRecord, CommentTextRecord, IssueFields, IssueRecord, StatusRecord, WorklogRecord } from '../domain/model';
import { insertRow, prepared, raw, setColumns, sql, withNamedParameters, type NamedStatement, type Sql } from '@tracker/kit';
import { SNAPSHOT_LIMITS } from '@tracker/contracts';
import { choosePage, type Sized } from '../domain/snapshot.rules';
import { ISSUE_FIELD_COLUMNS, ISSUE_FIELDS, ISSUE_RECORD_COLUMNS } from './issue-reads.repository';

/** Ancestor walks stop here, far beyond any real hierarchy (and any accidental loop). */
const MAX_DEPTH = 10_000;

/** The fields' columns with a named parameter each, for insertRow and setColumns. */
const fieldColumns = <F extends keyof IssueFields>(fields: readonly F[], p: { readonly [K in F]: unknown }) =>
  Object.fromEntries(fields.map((field) => [ISSUE_FIELD_COLUMNS[field], p[field]]));

/** Every field a new issue's row gives (NewIssueRow): all but the place. */
const INSERTED_FIELDS = ISSUE_FIELDS.filter((field): field is Exclude<keyof IssueFields, 'position'> => field !== 'position');

/**
 * The issue at the end of its status and its "created" history entry, in one statement.
 * The end is the domain's endPosition (one past the largest position, 1 in an empty
 * status), read here rather than by a statement of its own: this statement starts after
 * the one that locked the status, so its snapshot holds every place committed before.
 */
const INSERT_ISSUE = withNamedParameters<NewIssueRow>(
  (p) => sql`
  WITH i AS (
    INSERT INTO issues ${insertRow({
      workspace_id: p.workspaceId,
      queue_id: p.queueId,
      number: p.number,
      key: p.key,
      ...fieldColumns(INSERTED_FIELDS, p),
      position: sql`(SELECT coalesce(max(position), 0) + 1 FROM issues WHERE status_id = ${p.statusId})`,
      created_by: p.createdBy,
      created_at: p.at,
      updated_at: p.at,
    })}
    RETURNING *),
  history AS (INSERT INTO issue_history (issue_id, actor_id, at, field) SELECT id, created_by, created_at, 'created' FROM i)
  SELECT ${raw(ISSUE_RECORD_COLUMNS)} FROM i`,
);

/** What a PATCH's statement takes: the new values by field, and its history entries as parallel arrays (field, from, to), in order. */
type IssueUpdateRun = IssuePatch & { id: number; at: Date; actorId: number; historyFields: string[]; historyFrom: Array<string | null>; historyTo: Array<string | null> };

/**
 * The PATCH of `fields`: new values, next version and revision, and the history entries
 * of issue `id` by `actorId` at `at`, in their order. The SET names the fields' columns
 * (ISSUE_FIELD_COLUMNS), never the request's keys.
 */
const updateIssue = (fields: ReadonlyArray<keyof IssueFields>) =>
  withNamedParameters<IssueUpdateRun>(
    (p) => sql`
    WITH i AS (
      UPDATE issues SET ${setColumns({ ...fieldColumns(fields, p), version: raw('version + 1'), revision: raw('revision + 1'), updated_at: p.at })}
       WHERE id = ${p.id} RETURNING *),
    history AS (
      INSERT INTO issue_history (issue_id, actor_id, at, field, "from", "to")
      SELECT ${p.id}::int, ${p.actorId}::int, ${p.at}::timestamptz, field, "from", "to"
        FROM unnest(${p.historyFields}::text[], ${p.historyFrom}::jsonb[], ${p.historyTo}::jsonb[]) WITH ORDINALITY AS ch(field, "from", "to", n)
       ORDER BY n)
    SELECT ${raw(ISSUE_RECORD_COLUMNS)} FROM i`,
  );

/**
 * Each set of fields' statement, built the first time a PATCH changes that set: at most
 * one per subset of PATCHABLE_FIELDS (2,047), by the set's bit mask.
 */
const UPDATES = new Map<number, NamedStatement<IssueUpdateRun>>();

/** PATCHes of at most this many fields run as prepared statements (issuesRepository.update). */
const MAX_PREPARED_UPDATE_FIELDS = 2;

const TOUCH_ISSUE = withNamedParameters<{ id: number; at: Date; spentMinutes: number }>(
  (p) => sql`
  WITH i AS (UPDATE issues SET revision = revision + 1, updated_at = ${p.at}, spent_minutes = spent_minutes + ${p.spentMinutes} WHERE id = ${p.id} RETURNING *)
  SELECT ${raw(ISSUE_RECORD_COLUMNS)} FROM i`,
);

// JSON null and absent are both stored as SQL NULL (as the history always had them).
const toJson = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

/**
 * Whether the issue holds fewer than `cap` comments or worklogs (read up to `cap` index
 * entries), as the condition of the statement that adds one. The issue row is locked by
 * an earlier statement (touch), so this statement's snapshot counts every one committed
 * before and concurrent writers cannot pass the cap together.
 */
const roomFor = (table: 'comments' | 'worklogs', p: { readonly issueId: unknown; readonly cap: unknown }) =>
  sql`(SELECT count(*) FROM (SELECT 1 FROM ${raw(table)} WHERE issue_id = ${p.issueId}::int LIMIT ${p.cap}::int) t) < ${p.cap}::int`;

/** A comment, unless the issue is full. */
const ADD_COMMENT = withNamedParameters<{ issueId: number; authorId: number; body: string; at: Date; cap: number }>(
  (p) => sql`
  INSERT INTO comments (issue_id, author_id, body, created_at)
  SELECT ${p.issueId}::int, ${p.authorId}::int, ${p.body}::text, ${p.at}::timestamptz WHERE ${roomFor('comments', p)}
  RETURNING id, issue_id AS "issueId", author_id AS "authorId", body, created_at AS "createdAt"`,
);

/** A worklog, unless the issue is full. */
const ADD_WORKLOG = withNamedParameters<{ issueId: number; authorId: number; minutes: number; description: string; at: Date; cap: number }>(
  (p) => sql`
  INSERT INTO worklogs (issue_id, author_id, minutes, description, created_at)
  SELECT ${p.issueId}::int, ${p.authorId}::int, ${p.minutes}::int, ${p.description}::text, ${p.at}::timestamptz WHERE ${roomFor('worklogs', p)}
  RETURNING id, issue_id AS "issueId", author_id AS "authorId", minutes, description, created_at AS "createdAt"`,
);

export function issuesRepository(c: Sql): IssuesRepository {
  async function maxPosition(statusId: number, exceptIssueId?: number): Promise<number | null> {
    // Issue ids start at 1, so 0 excludes nothing.
    const rows = await prepared<{ max: number | null }>(
      c,
      'issues.max-position',
      `SELECT max(position) AS max FROM issues WHERE status_id = $1 AND id <> $2`,
      [statusId, exceptIssueId ?? 0],
    );
    return rows[0]!.max;
  }

  return {
    async findInWorkspace(workspaceId: number, id: number): Promise<IssueRecord | null> {
      const rows = await prepared<IssueRecord>(
        c,
        'issues.find-in-workspace',
        `SELECT ${ISSUE_RECORD_COLUMNS} FROM issues i WHERE i.workspace_id = $1 AND i.id = $2`,
        [workspaceId, id],
      );
      return rows[0] ?? null;
    },

    /**
     * The issue row locked until the transaction ends, so the version check and the
     * write are atomic. FOR NO KEY UPDATE is the lock the UPDATE itself takes: it
     * excludes other writers of the row but not foreign-key checks of rows that
     * reference it (a subtask or comment being added elsewhere), which FOR UPDATE
     * would block and could deadlock with.
     */
    async lock(id: number): Promise<IssueRecord> {
      const rows = await prepared<IssueRecord>(
        c,
        'issues.lock',
        `SELECT ${ISSUE_RECORD_COLUMNS} FROM issues i WHERE i.id = $1 FOR NO KEY UPDATE`,
        [id],
      );
      return rows[0]!;
    },

    /**
     * Hands out the queue's next issue number and locks the status a new issue enters,
     * in one statement. The counter row stays locked until commit, so concurrent
     * creations in one queue get consecutive numbers and a rolled-back creation's number
     * is never seen by anyone. The status row is locked after the queue row (its scan
     * needs the counter's row first), the order every creation takes them in; the end
     * position is read by the next statement (create), as lockedMaxPosition explains.
     */
    async nextNumberLockingStatus(queueId: number, statusId: number): Promise<{ number: number; queueKey: string }> {
      const rows = await prepared<{ number: number; queueKey: string; locked: number }>(
        c,
        'issues.next-number-locking-status',
        `WITH counter AS (UPDATE queues SET issue_counter = issue_counter + 1 WHERE id = $1 RETURNING id, issue_counter, key),
              locked AS (SELECT 1 FROM statuses WHERE id = $2 AND queue_id = (SELECT id FROM counter) FOR NO KEY UPDATE)
         SELECT counter.issue_counter AS number, counter.key AS "queueKey", (SELECT count(*)::int FROM locked) AS locked FROM counter`,
        [queueId, statusId],
      );
      const row = rows[0];
      if (!row || row.locked !== 1) throw new Error(`queue ${queueId} has no status ${statusId} to lock`);
      return { number: row.number, queueKey: row.queueKey };
    },

    async statusInQueue(queueId: number, statusId: number): Promise<StatusRecord | null> {
      const rows = await prepared<StatusRecord>(
        c,
        'issues.status-in-queue',
        `SELECT id, queue_id AS "queueId", name, category, position FROM statuses WHERE id = $1 AND queue_id = $2`,
        [statusId, queueId],
      );
      return rows[0] ?? null;
    },

    /**
     * The largest position in a status, for a write that puts an issue at its end. The
     * status row is locked first, until the transaction ends, so such writes take turns:
     * the max, read by a later statement (one read in the locking statement would use a
     * snapshot from before the wait), includes the place the previous one committed, and
     * positions follow commit order. FOR NO KEY UPDATE, like the issue lock: it does not
     * block the foreign-key checks of issues entering the status with a given position.
     */
    async lockedMaxPosition(statusId: number, exceptIssueId?: number): Promise<number | null> {
      await prepared(c, 'issues.lock-status', `SELECT 1 FROM statuses WHERE id = $1 FOR NO KEY UPDATE`, [statusId]);
      return maxPosition(statusId, exceptIssueId);
    },

    /**
     * Serialises parent changes within a workspace, so two concurrent PATCHes
     * cannot each pass the cycle check and together close a loop.
     */
    async lockHierarchy(workspaceId: number): Promise<void> {
      await c.query(`SELECT 1 FROM pg_advisory_xact_lock(hashtext('issues.hierarchy'), $1::int)`, [workspaceId]);
    },

    /** Parent, grandparent, ... of an issue. */
    async ancestorIds(id: number): Promise<number[]> {
      const { rows } = await c.query<{ id: number }>(
        `WITH RECURSIVE up(id, depth) AS (
           SELECT parent_id, 1 FROM issues WHERE id = $1 AND parent_id IS NOT NULL
           UNION
           SELECT i.parent_id, up.depth + 1 FROM issues i JOIN up ON i.id = up.id
           WHERE i.parent_id IS NOT NULL AND up.depth < $2
         )
         SELECT id FROM up`,
        [id, MAX_DEPTH],
      );
      return rows.map((r) => r.id);
    },

    async create(input: NewIssueRow): Promise<IssueRecord> {
      return (await prepared<IssueRecord>(c, 'issues.insert', INSERT_ISSUE.text, INSERT_ISSUE.values(input)))[0]!;
    },

    /** A PATCH that changed something: new values, next version and revision, and the changes' history entries. */
    async update(id: number, values: IssuePatch, history: { actorId: number; changes: readonly HistoryChange[] }, at: Date): Promise<IssueRecord> {
      const fields = PATCHABLE_FIELDS.filter((f) => values[f] !== undefined);
      const fieldSet = PATCHABLE_FIELDS.reduce((mask, f, bit) => (values[f] !== undefined ? mask | (1 << bit) : mask), 0);
      let statement = UPDATES.get(fieldSet);
      if (!statement) UPDATES.set(fieldSet, (statement = updateIssue(fields)));
      const params = statement.values({
        ...values,
        id,
        at,
        actorId: history.actorId,
        historyFields: history.changes.map((ch) => ch.field),
        historyFrom: history.changes.map((ch) => toJson(ch.from)),
        historyTo: history.changes.map((ch) => toJson(ch.to)),
      });
      // The usual PATCH changes one or two fields: that statement is prepared once per
      // connection, named by its fields as a bit mask over PATCHABLE_FIELDS (Postgres cuts
      // names at 63 bytes). Larger sets go unnamed, so no client can fill a connection with
      // plans (eleven fields make 2,047 sets; one or two, 66).
      if (fields.length > MAX_PREPARED_UPDATE_FIELDS) return (await c.query<IssueRecord>(statement.text, params)).rows[0]!;
      return (await prepared<IssueRecord>(c, `issues.update.${fieldSet.toString(36)}`, statement.text, params))[0]!;
    },

    /**
     * A comment or worklog: the aggregate's revision grows (events stay ordered) and
     * so does `updated_at`, but not the API `version`. The update also locks the row.
     */
    async touch(id: number, at: Date, spentMinutes = 0): Promise<IssueRecord> {
      return (await prepared<IssueRecord>(c, 'issues.touch', TOUCH_ISSUE.text, TOUCH_ISSUE.values({ id, at, spentMinutes })))[0]!;
    },

    async addComment(issueId: number, authorId: number, body: string, at: Date, cap: number): Promise<CommentRecord | null> {
      const rows = await prepared<CommentRecord>(c, 'issues.add-comment', ADD_COMMENT.text, ADD_COMMENT.values({ issueId, authorId, body, at, cap }));
      return rows[0] ?? null;
    },

    async addWorklog(issueId: number, authorId: number, minutes: number, description: string, at: Date, cap: number): Promise<WorklogRecord | null> {
      const rows = await prepared<WorklogRecord>(
        c,
        'issues.add-worklog',
        ADD_WORKLOG.text,
        ADD_WORKLOG.values({ issueId, authorId, minutes, description, at, cap }),
      );
      return rows[0] ?? null;
    },

    /**
     * Records `mentions` links both ways to the issues of the workspace with these
     * keys (unknown keys and the issue itself are skipped). Idempotent. Targets are
     * linked in id order so concurrent writers take index locks in the same order.
     */
    async linkMentions(source: { id: number; workspaceId: number }, keys: string[], at: Date): Promise<void> {
      if (keys.length === 0) return;
      await c.query(
        `INSERT INTO issue_links (source_id, target_id, type, direction, created_at)
         SELECT l.source_id, l.target_id, 'mentions', l.direction, $4::timestamptz
           FROM (SELECT id FROM issues WHERE workspace_id = $1 AND key = ANY($2::text[]) AND id <> $3::int) t
          CROSS JOIN LATERAL (VALUES ($3, t.id, 'outward', 1), (t.id, $3, 'inward', 2)) AS l(source_id, target_id, direction, n)
          ORDER BY t.id, l.n
         ON CONFLICT DO NOTHING`,
        [source.workspaceId, keys, source.id, at],
      );
    },

    /**
     * Every issue of every workspace, by id, for the replica snapshot: at most `limit`
     * rows, fewer when their text would pass SNAPSHOT_LIMITS.pageBytes (choosePage).
     * Sizes come from octet_length, which reads a long text's length without fetching it.
     * Run in one REPEATABLE READ transaction (snapshotPage) so the sizes are those of the rows sent.
     */
    async page(afterId: number, limit: number): Promise<{ issues: IssueRecord[]; more: boolean }> {
      const sizes = await prepared<Sized>(
        c,
        'issues.snapshot-sizes',
        `SELECT i.id, ($3::int + octet_length(i.key) + octet_length(i.title) + octet_length(i.description) + octet_length(i.type)
                 + coalesce(octet_length(array_to_string(i.labels, '')) + 3 * cardinality(i.labels), 0))::float8 AS size
           FROM issues i WHERE i.id > $1 ORDER BY i.id LIMIT $2`,
        [afterId, limit + 1, SNAPSHOT_LIMITS.issueRowOverhead],
      );
      const { ids, more } = choosePage(sizes, limit, SNAPSHOT_LIMITS.pageBytes);
      const issues = await prepared<IssueRecord>(
        c,
        'issues.snapshot-issues',
        `SELECT ${ISSUE_RECORD_COLUMNS} FROM issues i WHERE i.id = ANY($1::int[]) ORDER BY i.id`,
        [ids],
      );
      return { issues, more };
    },

    /** Every comment's text, by id, for the replica snapshot: paged as `page`. */
    async commentsPage(afterId: number, limit: number): Promise<{ comments: CommentTextRecord[]; more: boolean }> {
      const sizes = await prepared<Sized>(
        c,
        'issues.snapshot-comment-sizes',
        `SELECT id, ($3::int + octet_length(body))::float8 AS size FROM comments WHERE id > $1 ORDER BY id LIMIT $2`,
        [afterId, limit + 1, SNAPSHOT_LIMITS.commentRowOverhead],
      );
      const { ids, more } = choosePage(sizes, limit, SNAPSHOT_LIMITS.pageBytes);
      const comments = await prepared<CommentTextRecord>(
        c,
        'issues.snapshot-comments',
        `SELECT id, issue_id AS "issueId", body FROM comments WHERE id = ANY($1::int[]) ORDER BY id`,
        [ids],
      );
      return { comments, more };
    },
  };
}

