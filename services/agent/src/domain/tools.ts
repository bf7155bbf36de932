import { z } from 'zod';
import {
  API_OPERATIONS,
  IDEMPOTENCY,
  IdempotencyKey,
  PATH_PARAMETERS,
  PublicEventType,
  ISSUE_READ_LIMITS,
  pathParams,
  querySchemaOf,
  requestSchemaOf,
  responseSchemaOf,
  SEARCH_LIMIT,
  type ApiOperation,
  type PathParam,
  type ProblemCode,
} from '@tracker/contracts';

/**
 * The agent tool interface: one tool per REST operation. A row names the operation and
 * says, for an agent, what the tool is for; everything else (arguments, answer, rights,
 * errors) comes from the operation as libs/contracts defines it, so a tool cannot drift
 * from its REST twin. Adding an operation later means adding one row. The personal
 * tokens' operations have none: tokens are for people (POST /tokens takes a signed-in
 * page's token, which an agent never holds), and an agent has no business listing or
 * revoking its owner's credentials. Nor do the webhooks': a webhook's secret is a
 * credential for an integration's receiver, set up by an admin, not by an agent.
 */
interface ToolRow {
  name: string;
  operationId: string;
  title: string;
  /** What the tool does and when to use it; the rights and errors are added from the operation. */
  does: string;
  /** `destructive`: removes access, deactivates users or replaces a user's way in (agents should confirm first). */
  effect: 'read' | 'write' | 'destructive';
  /** The answer's outline, where the operation's full schema would weigh on every agent's context (tools/list) for little. */
  output?: z.ZodObject;
}

/**
 * list_events' answer: each event's envelope with `data` left open. The full schemas of the
 * nine kinds of event (each object as the API answers it, and `previous`) would add 16 KB
 * to tools/list; the tool's description says what `data` holds, and the REST document has them.
 */
const EVENT_PAGE_OUTLINE = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      type: PublicEventType,
      timestamp: z.string(),
      workspace_id: z.number().int(),
      data: z.record(z.string(), z.unknown()),
    }),
  ),
  next_cursor: z.string(),
});

const ROWS: readonly ToolRow[] = [
  { name: 'get_me', operationId: 'getMe', title: 'Who am I', effect: 'read', does: 'Returns the caller (id, name, workspace role) and their workspace.' },
  { name: 'list_queues', operationId: 'listQueues', title: 'List queues', effect: 'read', does: 'Lists the queues the caller can read, each with its statuses in order and the caller\'s effective role.' },
  { name: 'create_queue', operationId: 'createQueue', title: 'Create a queue', effect: 'write', does: 'Creates a queue with the standard statuses (Open, In progress, In review, Done, Cancelled) and returns it with its id.' },
  { name: 'update_queue', operationId: 'updateQueue', title: 'Update a queue', effect: 'write', does: 'Changes the name and/or description of a queue.' },
  { name: 'list_statuses', operationId: 'listStatuses', title: 'List statuses', effect: 'read', does: 'Lists the statuses of every readable queue (id, queue_id, name, category open/progress/done, position). Use a status id to move an issue with update_issue.' },
  { name: 'list_users', operationId: 'listUsers', title: 'List users', effect: 'read', does: 'Lists the users of the workspace, deactivated ones included (active: false). Use a user id as assignee_id.' },
  { name: 'update_user', operationId: 'updateUser', title: 'Update a user', effect: 'destructive', does: 'Changes a user\'s name, workspace role or activity. Deactivating (active: false) locks the user out at once; demoting removes admin rights.' },
  { name: 'invite_user', operationId: 'inviteUser', title: 'Invite a colleague', effect: 'write', does: 'Adds a colleague to the workspace by name and email (role member unless given) and returns the new user with `setup_url`, a link good once within 72 hours through which they set a password. Hand the link to that person only: whoever opens it signs in as them.' },
  { name: 'issue_setup_link', operationId: 'issueSetupLink', title: 'Issue a setup link', effect: 'destructive', does: 'Makes a new setup link for a user of the workspace (a lost invitation, a forgotten password) and voids their earlier ones; `email`, if given, first sets or changes their email, their sign-in name, at once. Whoever opens the link sets the user\'s password, which ends the user\'s sessions: hand it to that person only.' },
  { name: 'search_issues', operationId: 'searchIssues', title: 'Search issues', effect: 'read', does: `Finds issues by free text and filters (all filters AND together), most recently updated first. Returns at most \`limit\` issues (default 50) with \`total\` (matches, counted up to ${SEARCH_LIMIT}) and \`truncated\` (whether more matched than came back): narrow the filters rather than raising the limit.` },
  { name: 'get_issue', operationId: 'getIssue', title: 'Read an issue', effect: 'read', does: `Reads an issue by its key (such as WEB-12): its fields, status, version, and the newest ${ISSUE_READ_LIMITS.embedded} of its comments, worklogs, history entries, readable links and subtasks with how many there are of each (\`comments_total\`, …; list_comments and the other list tools page through the rest). Read it before updating it and send its \`version\` with update_issue.` },
  { name: 'list_comments', operationId: 'listComments', title: 'List comments', effect: 'read', does: 'Pages through the comments of an issue, oldest first: `limit` at a time from `after_id` (0 first, then the `next_after_id` of the previous page, until it is null).' },
  { name: 'list_worklogs', operationId: 'listWorklogs', title: 'List worklogs', effect: 'read', does: 'Pages through the worklogs of an issue, oldest first, as list_comments does.' },
  { name: 'list_history', operationId: 'listHistory', title: 'List history', effect: 'read', does: 'Pages through the history of an issue (one entry per changed field), oldest first, as list_comments does.' },
  { name: 'list_links', operationId: 'listLinks', title: 'List links', effect: 'read', does: 'Pages through the links of an issue to issues the caller can read, oldest first, as list_comments does.' },
  { name: 'list_subtasks', operationId: 'listSubtasks', title: 'List subtasks', effect: 'read', does: 'Pages through the subtasks of an issue that the caller can read, by id, as list_comments does.' },
  { name: 'create_issue', operationId: 'createIssue', title: 'Create an issue', effect: 'write', does: 'Creates an issue in a queue, in its first open status; returns it with its new key, id and version 1.' },
  { name: 'update_issue', operationId: 'updateIssue', title: 'Update an issue', effect: 'write', does: 'Changes fields of an issue or moves it to another status of its queue (status_id, optional position). Send only the fields to change, plus `version` from your last read to be safe against lost updates; null clears assignee_id, parent_id or due_date.' },
  { name: 'add_comment', operationId: 'addComment', title: 'Comment on an issue', effect: 'write', does: 'Adds a comment, authored by the caller, to an issue; returns the comment with its id.' },
  { name: 'add_worklog', operationId: 'addWorklog', title: 'Log time on an issue', effect: 'write', does: 'Records 1 to 1440 whole minutes of work by the caller on an issue; returns the worklog with its id.' },
  { name: 'get_statistics', operationId: 'getStatistics', title: 'Issue statistics', effect: 'read', does: `Counts the matching readable issues (the same filters as search_issues): progress per category and done_percent, estimated and spent minutes, per queue and per assignee. Covers at most ${SEARCH_LIMIT} issues (\`truncated\` says if that cut the set); \`as_of\` tells how current the figures are.` },
  { name: 'list_dashboards', operationId: 'listDashboards', title: 'List dashboards', effect: 'read', does: 'Lists the workspace\'s dashboards with their widgets (dashboards naming a queue hidden from the caller are left out).' },
  { name: 'get_dashboard_statistics', operationId: 'getDashboardStatistics', title: 'Dashboard statistics', effect: 'read', does: 'Computes the statistics of every widget of a dashboard at once: for each widget, in order, what get_statistics answers for its filters. Quicker than one get_statistics call per widget.' },
  { name: 'create_dashboard', operationId: 'createDashboard', title: 'Create a dashboard', effect: 'write', does: 'Creates a dashboard owned by the caller, shared with the workspace; returns it with its id.' },
  { name: 'replace_dashboard', operationId: 'replaceDashboard', title: 'Replace a dashboard', effect: 'write', does: 'Replaces the name and all widgets of a dashboard the caller owns.' },
  { name: 'get_queue_permissions', operationId: 'listQueuePermissions', title: 'Queue permissions', effect: 'read', does: `Lists every workspace user's role on a queue (explicit and inherited), and the newest ${ISSUE_READ_LIMITS.embedded} permission changes with how many there are (\`history_total\`; list_queue_permission_history pages through all of them).` },
  { name: 'list_queue_permission_history', operationId: 'listQueuePermissionHistory', title: 'List permission history', effect: 'read', does: 'Pages through the permission changes of a queue (grants, changes and revokes of explicit roles), oldest first, as list_comments does.' },
  { name: 'set_queue_permission', operationId: 'setQueuePermission', title: 'Grant a queue role', effect: 'write', does: 'Grants or changes a user\'s explicit role on a queue (read-only, read-write or admin); in force for their very next request.' },
  { name: 'list_events', operationId: 'listEvents', title: 'List events', effect: 'read', output: EVENT_PAGE_OUTLINE, does: 'Lists what changed in the workspace, oldest first: the events (issue.created, issue.updated, comment.added, worklog.added, queue.*, permission.changed, user.*) after `after`, each with the object as the API shows it and, on changes, `previous` (the old values). Keep `next_cursor` and pass it as `after` next time to get only what happened since; the feed is caught up when `next_cursor` comes back equal to `after`. `types` filters, e.g. "issue.*,comment.added". Only events of what you may read now are listed.' },
  { name: 'revoke_queue_permission', operationId: 'revokeQueuePermission', title: 'Revoke a queue role', effect: 'destructive', does: 'Removes a user\'s explicit role on a queue, so a member loses access to it at once (workspace admins keep their inherited admin role).' },
];

/** What each refusal means to an agent and what to do next. */
const REFUSALS: Partial<Record<ProblemCode, string>> = {
  forbidden: '403 `forbidden`: your role does not allow this',
  not_found: '404 `not_found`: it does not exist or is hidden from you',
  version_conflict: '409 `version_conflict`: the issue changed since you read it (the problem carries the current `version`): read it again with get_issue, then reconsider the change rather than resending it',
  last_active_admin: '409 `last_active_admin`: the workspace would have no active admin left',
  queue_key_taken: '409 `queue_key_taken`: the workspace has a queue with this key already',
  email_taken: '409 `email_taken`: another user already has this email (emails are unique whatever their case)',
  statistics_unavailable: '503 `statistics_unavailable`: statistics are briefly unavailable, retry after a few seconds',
  cursor_expired: '410 `cursor_expired`: the cursor is older than the events kept (7 days); call again without `after` to start from the oldest event kept',
  idempotency_key_reused: `422 \`idempotency_key_reused\`: this idempotency_key was used within ${IDEMPOTENCY.replayHours} hours for a different write; use a new key for a new write`,
};

/**
 * Refusals a tool cannot meet: `precondition_failed` answers an `If-Match` header, which
 * no tool sends (update_issue guards with `version` in its arguments instead).
 */
export const REFUSALS_WITHOUT_TOOL_CAUSE: readonly ProblemCode[] = ['precondition_failed'];

export const SEARCH_DEFAULT_LIMIT = 50;

/** search_issues only: how many of the matches to return (the REST search returns them all, up to the cap). */
const searchLimit = z
  .number()
  .int()
  .min(1)
  .max(SEARCH_LIMIT)
  .meta({ description: `How many issues to return, 1 to ${SEARCH_LIMIT}.`, examples: [20] })
  .default(SEARCH_DEFAULT_LIMIT);

/** The write tools whose REST twin replays a repeated Idempotency-Key: a retry with the same key replays rather than writing twice. */
const idempotencyKey = IdempotencyKey.meta({
  description: `Optional: a key for this one write (a UUID, say). Called again with the same key and arguments within ${IDEMPOTENCY.replayHours} h, the tool returns the first result and writes nothing twice.`,
  examples: ['5f0c6f7e-9d2a-4c1b-8d53-2f4f0b6a9e11'],
});

export interface Tool {
  name: string;
  operation: ApiOperation;
  /** Path parameters among the arguments; the rest is the request body. */
  pathParams: PathParam[];
  /** Query parameters among the arguments (the list tools' `after_id`, `limit`), sent in the query string. */
  queryParams: string[];
  /** Whether the tool takes `idempotency_key`, sent as the Idempotency-Key header (the writes whose REST twin replays a key). */
  idempotent: boolean;
  /** The arguments: the path parameters, the query parameters and the REST body's fields side by side, nothing else. */
  args: z.ZodObject;
  /** Whether the answer is a list (wrapped as `{ items }`), and whether it is the search's. */
  answer: 'object' | 'list' | 'search';
  /** As tools/list shows it. */
  definition: {
    name: string;
    title: string;
    description: string;
    inputSchema: Record<string, unknown>;
    outputSchema: Record<string, unknown>;
    annotations: Record<string, unknown>;
  };
}

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') =>
  withoutFormatPatterns(z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'throw' })) as Record<string, unknown>;

/**
 * An output schema checks a result; an agent reads the tool's description and the input
 * schema to decide. Without the property descriptions (the REST document keeps them)
 * tools/list stays about 80 KB instead of 112. A string `description` is the keyword; a
 * property named `description` is an object and stays.
 */
function withoutDescriptions(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutDescriptions);
  if (!schema || typeof schema !== 'object') return schema;
  const entries = Object.entries(schema).filter(([key, value]) => !(key === 'description' && typeof value === 'string'));
  return Object.fromEntries(entries.map(([key, value]) => [key, withoutDescriptions(value)]));
}

/**
 * zod spells out a `format` (date, date-time) as a 200-character `pattern` too. The format
 * says the same to every client and validator, and tool definitions are read into an
 * agent's context: without the patterns tools/list is 62 KB instead of 73.
 */
function withoutFormatPatterns(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutFormatPatterns);
  if (!schema || typeof schema !== 'object') return schema;
  const entries = Object.entries(schema).filter(([key]) => !(key === 'pattern' && 'format' in schema));
  return Object.fromEntries(entries.map(([key, value]) => [key, withoutFormatPatterns(value)]));
}

function describe(row: ToolRow, operation: ApiOperation): string {
  const refusals = [...(operation.errors ?? []), ...(operation.service === 'statistics' ? ['statistics_unavailable' as const] : [])]
    .filter((code) => !REFUSALS_WITHOUT_TOOL_CAUSE.includes(code))
    .map((code) => REFUSALS[code])
    .filter(Boolean);
  refusals.push('422 `validation_failed`: invalid arguments, each listed in `errors`; nothing was changed');
  return `${row.does}\nRights: ${operation.rights}.\nRefusals come back as error results whose text is the problem+json body: ${refusals.join('; ')}.`;
}

function annotations(row: ToolRow, operation: ApiOperation): Record<string, unknown> {
  if (row.effect === 'read') return { title: row.title, readOnlyHint: true, openWorldHint: false };
  return {
    title: row.title,
    readOnlyHint: false,
    destructiveHint: row.effect === 'destructive',
    idempotentHint: operation.method === 'put' || operation.method === 'delete',
    openWorldHint: false,
  };
}

function buildTool(row: ToolRow): Tool {
  const operation = API_OPERATIONS.find((o) => o.operationId === row.operationId);
  if (!operation) throw new Error(`tool ${row.name}: no operation ${row.operationId}`);
  const params = pathParams(operation.path);
  const query = querySchemaOf(operation);
  const answer = row.name === 'search_issues' ? 'search' : operation.success.list ? 'list' : 'object';
  // Only where the service replays a key: the account POSTs take none, and a key there would promise what nothing keeps.
  const idempotent = operation.idempotency === 'replayed';
  const args = z.strictObject({
    ...Object.fromEntries(params.map((p) => [p, PATH_PARAMETERS[p]])),
    ...query?.shape,
    ...requestSchemaOf(operation)?.shape,
    ...(answer === 'search' ? { limit: searchLimit } : {}),
    ...(idempotent ? { idempotency_key: idempotencyKey.optional() } : {}),
  });
  const response = row.output ?? responseSchemaOf(operation);
  if (!response) throw new Error(`tool ${row.name}: operation ${row.operationId} has no JSON answer`);
  const items = response instanceof z.ZodArray ? response : z.array(response);
  const output =
    answer === 'search'
      ? z.object({
          items,
          total: z.number().int().min(0).max(SEARCH_LIMIT).meta({ description: `Matching issues, counted up to ${SEARCH_LIMIT}.` }),
          truncated: z.boolean().meta({ description: 'Whether more issues matched than came back.' }),
        })
      : answer === 'list'
        ? z.object({ items })
        : response;
  return {
    name: row.name,
    operation,
    pathParams: params,
    queryParams: Object.keys(query?.shape ?? {}),
    idempotent,
    args,
    answer,
    definition: {
      name: row.name,
      title: row.title,
      description: describe(row, operation),
      inputSchema: jsonSchema(args, 'input'),
      outputSchema: withoutDescriptions(jsonSchema(output, 'output')) as Record<string, unknown>,
      annotations: annotations(row, operation),
    },
  };
}

export const TOOLS: readonly Tool[] = ROWS.map(buildTool);

export const toolNamed = (name: string): Tool | undefined => TOOLS.find((tool) => tool.name === name);
