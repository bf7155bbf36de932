import type { IssueReadsRepository } from '../domain/ports';
import { ISSUE_READ_LIMITS } from '@tracker/contracts';
import { prepared, type Sql } from '@tracker/kit';
import { ISSUE_FIELD_API_NAMES } from '../domain/issue-wire';
import type { IssueAttachments, IssueDetails, IssueFields, IssueListName, IssueLists, IssueRecord, ListPageOf } from '../domain/model';

/**
 * The issue read, the hottest path of the service (every read, and the first step of
 * every write), as prepared statements. Rows are shaped in SQL so they need no mapping.
 *
 * What one read returns is bounded whatever users add to an issue: the newest
 * ISSUE_READ_LIMITS.embedded of each list, each list read backwards along its
 * (owner, id) index so that only those rows are touched, and counts that stop at
 * ISSUE_READ_LIMITS.counted. The list endpoints page through the rest the same way.
 */

/**
 * Where each of an issue's fields (IssueFields) is stored. The insert and a PATCH's
 * update (issues.repository.ts) and every issue read (ISSUE_RECORD_COLUMNS below) are
 * built from this table. Each column is named as the API names its field (schema.prisma
 * `@map`), so the table is the API names' own; a column named otherwise would be
 * overridden here (`{ ...ISSUE_FIELD_API_NAMES, field: 'column' }`).
 */
export const ISSUE_FIELD_COLUMNS: { readonly [F in keyof IssueFields]: string } = ISSUE_FIELD_API_NAMES;

export const ISSUE_FIELDS = Object.keys(ISSUE_FIELD_COLUMNS) as ReadonlyArray<keyof IssueFields>;

type ReadAs = { readonly [F in keyof IssueFields]?: string };

/** A field whose column does not hold its value as the record gives it (alias i): a date, as `YYYY-MM-DD` text. */
const READ_AS: ReadAs = { dueDate: `to_char(i.${ISSUE_FIELD_COLUMNS.dueDate}, 'YYYY-MM-DD')` };

/** An issue (alias i) as an IssueRecord row, each field read as `read` says or else from its column, with `more` after it. */
const recordColumns = (read: ReadAs, more = '') => `
  i.id, i.workspace_id AS "workspaceId", i.queue_id AS "queueId", i.key,
  ${ISSUE_FIELDS.map((field) => `${read[field] ?? `i.${ISSUE_FIELD_COLUMNS[field]}`} AS "${field}"`).join(', ')},
  (SELECT json_build_object('id', st.id, 'name', st.name, 'category', st.category) FROM statuses st WHERE st.id = i.status_id) AS status,
  i.spent_minutes AS "spentMinutes", i.version, i.revision, i.created_by AS "createdBy", i.created_at AS "createdAt", i.updated_at AS "updatedAt"${more}`;

/**
 * An issue (alias i) as an IssueRecord row: no mapping needed. Its status comes from a
 * subquery, not a join: a row locked with FOR NO KEY UPDATE after a concurrent update is
 * re-checked against a joined status row of the old status_id and silently dropped,
 * whereas the subquery is evaluated for the row as locked.
 */
export const ISSUE_RECORD_COLUMNS = recordColumns(READ_AS);

/**
 * As ISSUE_RECORD_COLUMNS, the description cut to its first ISSUE_READ_LIMITS.searchDescription
 * characters, and "descriptionTruncated" (an IssueSummaryRecord). `left` reads only the
 * start of a long (TOASTed) text, so a row costs the same whatever its description.
 */
const SUMMARY = ISSUE_READ_LIMITS.searchDescription;
export const ISSUE_SUMMARY_COLUMNS = recordColumns(
  { ...READ_AS, description: `left(i.description, ${SUMMARY})` },
  `, length(left(i.description, ${SUMMARY + 1})) > ${SUMMARY} AS "descriptionTruncated"`,
);

/** An issue (alias i) and its status (alias s) as an IssueRef. */
const ISSUE_REF_JSON =
  `json_build_object('id', i.id, 'key', i.key, 'queueId', i.queue_id, 'title', i.title, ` +
  `'status', json_build_object('id', s.id, 'name', s.name, 'category', s.category), 'assigneeId', i.assignee_id, 'priority', i.priority)`;

const FIND_BY_KEY = `
  SELECT ${ISSUE_RECORD_COLUMNS} FROM issues i WHERE i.workspace_id = $1 AND i.key = $2`;

/**
 * A history value (jsonb) as history shows it: a text longer than `limit` characters as
 * its first `limit` (domain/history.rules.ts: new rows store `limit + 1`, rows from before
 * the rule the whole text; both read alike).
 */
const shownText = (column: string, limit: string) =>
  `CASE WHEN jsonb_typeof(${column}) = 'string' AND length(${column} #>> '{}') > ${limit} THEN to_jsonb(left(${column} #>> '{}', ${limit})) ELSE ${column} END`;
const cutText = (column: string, limit: string) => `coalesce(jsonb_typeof(${column}) = 'string' AND length(${column} #>> '{}') > ${limit}, false)`;

/**
 * How each list is read. `$1` is the issue's id; `readable` lists take the caller's
 * readable queue ids as an int[] parameter (NULL: every queue, a workspace admin), and
 * history the text limit, as the parameter named in `extra`. Timestamps inside json come
 * out as ISO text; the mapper below turns them into Dates.
 */
interface ListSql {
  from: string;
  where: string;
  /** The keyset: the list's order and the cursor of its pages. */
  key: string;
  json: (extra: string) => string;
  extra?: 'readable' | 'textLimit';
  dated?: 'createdAt' | 'at';
}

const LISTS: Record<IssueListName, ListSql> = {
  comments: {
    from: 'comments x',
    where: 'x.issue_id = $1',
    key: 'x.id',
    json: () => `json_build_object('id', x.id, 'issueId', x.issue_id, 'authorId', x.author_id, 'body', x.body, 'createdAt', x.created_at)`,
    dated: 'createdAt',
  },
  worklogs: {
    from: 'worklogs x',
    where: 'x.issue_id = $1',
    key: 'x.id',
    json: () =>
      `json_build_object('id', x.id, 'issueId', x.issue_id, 'authorId', x.author_id, 'minutes', x.minutes, 'description', x.description, 'createdAt', x.created_at)`,
    dated: 'createdAt',
  },
  history: {
    from: 'issue_history x',
    where: 'x.issue_id = $1',
    key: 'x.id',
    json: (limit) =>
      `json_build_object('field', x.field, 'from', ${shownText('x."from"', limit)}, 'to', ${shownText('x."to"', limit)}, ` +
      `'fromTruncated', ${cutText('x."from"', limit)}, 'toTruncated', ${cutText('x."to"', limit)}, 'actorId', x.actor_id, 'at', x.at)`,
    extra: 'textLimit',
    dated: 'at',
  },
  links: {
    from: 'issue_links x JOIN issues i ON i.id = x.target_id JOIN statuses s ON s.id = i.status_id',
    where: 'x.source_id = $1',
    key: 'x.id',
    json: () => `json_build_object('type', x.type, 'direction', x.direction, 'createdAt', x.created_at, 'issue', ${ISSUE_REF_JSON})`,
    extra: 'readable',
    dated: 'createdAt',
  },
  subtasks: {
    from: 'issues i JOIN statuses s ON s.id = i.status_id',
    where: 'i.parent_id = $1',
    key: 'i.id',
    json: () => ISSUE_REF_JSON,
    extra: 'readable',
  },
};

const whereOf = (list: ListSql, extra: string) => (list.extra === 'readable' ? `${list.where} AND (${extra}::int[] IS NULL OR i.queue_id = ANY(${extra}::int[]))` : list.where);
const extraOf = (list: ListSql, readable: number[] | null) => (list.extra === 'readable' ? readable : ISSUE_READ_LIMITS.historyText);

/** At most `limit` rows of a list, counted (cheap: only `limit` index entries). */
const countOf = (list: ListSql, extra: string, limit: string) => `(SELECT count(*)::int FROM (SELECT 1 FROM ${list.from} WHERE ${whereOf(list, extra)} LIMIT ${limit}) t)`;

/**
 * The newest of each list (read backwards along the key, then put oldest first) and the
 * counts, of the issue $1. $2 how many of each, $3 the count cap, $4 the history text
 * limit, $5 the readable queues.
 */
const ATTACHMENTS = `SELECT ${(Object.keys(LISTS) as IssueListName[])
  .map((name) => {
    const list = LISTS[name];
    const extra = list.extra === 'readable' ? '$5' : '$4::int';
    const newest = `SELECT ${list.key} AS k, ${list.json(extra)} AS j FROM ${list.from} WHERE ${whereOf(list, extra)} ORDER BY ${list.key} DESC LIMIT $2`;
    return `(SELECT coalesce(json_agg(t.j ORDER BY t.k), '[]') FROM (${newest}) t) AS ${name}, ${countOf(list, extra, '$3')} AS "${name}Total"`;
  })
  .join(',\n')}`;

/**
 * An issue by key with its attachments (GET /issues/{key}) in one statement: $1 the
 * workspace, $2 the key, then ATTACHMENTS' parameters one place on ($3 how many of each,
 * $4 the count cap, $5 the history text limit, $6 the readable queues), its issue id
 * being the found row's.
 */
const FIND_WITH_ATTACHMENTS = `
  WITH found AS (SELECT ${ISSUE_RECORD_COLUMNS} FROM issues i WHERE i.workspace_id = $1 AND i.key = $2)
  SELECT found.*, a.* FROM found CROSS JOIN LATERAL (${ATTACHMENTS.replace(/\$([1-5])\b/g, (_, n: string) => (n === '1' ? 'found.id' : `$${Number(n) + 1}`))}) a`;

/** One page of a list: $2 after this key, $3 rows (one more than asked, to know whether more follow), $4 the count cap, $5 the list's extra. */
const pageSql = (list: ListSql) => {
  const extra = list.extra === 'readable' ? '$5' : list.extra === 'textLimit' ? '$5::int' : '';
  return `
    SELECT (SELECT coalesce(json_agg(json_build_object('k', t.k, 'j', t.j) ORDER BY t.k), '[]')
              FROM (SELECT ${list.key} AS k, ${list.json(extra)} AS j FROM ${list.from}
                     WHERE ${whereOf(list, extra)} AND ${list.key} > $2 ORDER BY ${list.key} LIMIT $3) t) AS rows,
           ${countOf(list, extra, '$4')} AS total`;
};
const PAGES = Object.fromEntries((Object.keys(LISTS) as IssueListName[]).map((name) => [name, pageSql(LISTS[name])])) as Record<IssueListName, string>;

type Row = Record<string, unknown>;
const dated = (list: ListSql) => (row: Row) => (list.dated ? { ...row, [list.dated]: new Date(row[list.dated] as string) } : row);

/** The columns ATTACHMENTS adds: each list and its total. */
const ATTACHMENT_COLUMNS = new Set((Object.keys(LISTS) as IssueListName[]).flatMap((name) => [name, `${name}Total`]));

/** An ATTACHMENTS row as IssueAttachments. */
function attachmentsOf(row: Row): IssueAttachments {
  const lists = Object.fromEntries(
    (Object.keys(LISTS) as IssueListName[]).map((name) => [name, (row[name] as Row[]).map(dated(LISTS[name]))]),
  ) as unknown as Omit<IssueAttachments, 'totals'>;
  const totals = Object.fromEntries((Object.keys(LISTS) as IssueListName[]).map((name) => [name, row[`${name}Total`] as number])) as IssueAttachments['totals'];
  return { ...lists, totals };
}

export function issueReadsRepository(sql: Sql): IssueReadsRepository {
  return {
    async findByKey(workspaceId: number, key: string): Promise<IssueRecord | null> {
      return (await prepared<IssueRecord>(sql, 'issues.find-by-key', FIND_BY_KEY, [workspaceId, key]))[0] ?? null;
    },

    /**
     * The issue (as findByKey) with the newest ISSUE_READ_LIMITS.embedded of its comments,
     * worklogs, history entries, links and subtasks (oldest first) and how many there are up
     * to ISSUE_READ_LIMITS.counted, in one round trip: the read of GET /issues/{key}. Links
     * and subtasks only in `readable` queues (null: every queue).
     */
    async findWithAttachments(workspaceId: number, key: string, readable: number[] | null): Promise<IssueDetails | null> {
      const [row] = await prepared<Row>(sql, 'issues.find-with-attachments', FIND_WITH_ATTACHMENTS, [
        workspaceId,
        key,
        ISSUE_READ_LIMITS.embedded,
        ISSUE_READ_LIMITS.counted,
        ISSUE_READ_LIMITS.historyText,
        readable,
      ]);
      if (!row) return null;
      // The issue's own columns, copied by a plain loop: every GET /issues/{key} passes here.
      const record: Row = {};
      for (const column in row) if (!ATTACHMENT_COLUMNS.has(column)) record[column] = row[column];
      return Object.assign(record as unknown as IssueRecord, attachmentsOf(row));
    },

    /** Up to `limit` items of a list after the key `afterId`, oldest first, the count, and the key the next page starts after. */
    async page<L extends IssueListName>(name: L, id: number, afterId: number, limit: number, readable: number[] | null): Promise<ListPageOf<IssueLists[L]>> {
      const list = LISTS[name];
      const values: unknown[] = [id, afterId, limit + 1, ISSUE_READ_LIMITS.counted];
      if (list.extra) values.push(extraOf(list, readable));
      const [row] = await prepared<{ rows: Array<{ k: number; j: Row }>; total: number }>(sql, `issues.page-${name}`, PAGES[name], values);
      const rows = row!.rows.slice(0, limit);
      return {
        items: rows.map((r) => dated(list)(r.j)) as unknown as IssueLists[L][],
        total: row!.total,
        nextAfterId: row!.rows.length > limit ? rows[rows.length - 1]!.k : null,
      };
    },
  };
}
