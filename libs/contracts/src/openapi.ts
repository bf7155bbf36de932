import { z } from 'zod';
import { Dashboard, DashboardInput, DASHBOARD_LIMITS, Widget } from './dashboards';
import { Filters, SEARCH_LIMIT, SEARCH_TRUNCATED_HEADER } from './filters';
import {
  Comment,
  CommentCreate,
  CommentPage,
  HistoryEntry,
  HistoryPage,
  Issue,
  IssueCreate,
  IssueDetails,
  IssueLink,
  IssueRef,
  IssueSummary,
  ISSUE_LIMITS,
  ISSUE_READ_LIMITS,
  IssueUpdate,
  LinkPage,
  ListPage,
  StatusRef,
  SubtaskPage,
  Worklog,
  WorklogCreate,
  WorklogPage,
} from './issues';
import { PermissionChange, QueueMember, QueuePermission, QueuePermissionInput, QueuePermissions } from './permissions';
import { FieldError, PROBLEM_CODES, Problems, type ProblemCode } from './problem';
import { PATH_PARAMETERS, type PathParam } from './path-params';
import { Queue, QueueCreate, QueueSettings, Status } from './queues';
import { StatisticsAssignee, StatisticsProgress, StatisticsQueue, StatisticsResult } from './statistics';
import { Me, User, UserChanges } from './users';

/**
 * The published OpenAPI 3.1 document of /api/v1 (GET /api/v1/openapi.json, served without a token),
 * built from the zod schemas the services validate requests with and type answers by:
 * request bodies as the schemas accept them (defaults optional), answers as they leave.
 */

export const API_VERSION = '1.0.0';
export const OPENAPI_PATH = '/api/v1/openapi.json';

/** Who serves an operation: the gateway itself or the service it forwards to. */
export type ServiceName = 'gateway' | 'access' | 'issues' | 'statistics';
export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Request bodies, as the services parse them (spec names in the descriptions). */
const REQUEST_SCHEMAS = {
  QueueCreate: [QueueCreate, 'Spec: Queue. The key is stored upper-case and is unique in the workspace (case-insensitively).'],
  QueueSettings: [QueueSettings, 'Spec: QueueSettings.'],
  QueuePermissionInput: [QueuePermissionInput, 'Spec: QueuePermission.'],
  UserChanges: [UserChanges, 'Spec: UserChanges.'],
  IssueCreate: [IssueCreate, 'Spec: IssueCreate. `parent_id` names a readable issue of the workspace; `assignee_id` an active user.'],
  IssueUpdate: [
    IssueUpdate,
    'Spec: IssueUpdate. Send only the fields to change; `null` clears `assignee_id`, `parent_id` or `due_date`. Send `version` (the one last read) to be protected against lost updates: a stale one is 409 `version_conflict`.',
  ],
  CommentCreate: [CommentCreate, 'Spec: Comment.'],
  WorklogCreate: [WorklogCreate, 'Spec: Worklog. 1 to 1440 whole minutes.'],
  Filters: [Filters, 'Spec: Filters. Every filter given narrows the set (AND); absent, null, false and a blank search do not filter.'],
  Widget: [Widget, 'Spec: Widget.'],
  DashboardInput: [
    DashboardInput,
    `Spec: Dashboard. At most ${DASHBOARD_LIMITS.widgets} widgets, whose filters name at most ${DASHBOARD_LIMITS.ids} ids and whose titles, searches and labels hold at most ${DASHBOARD_LIMITS.text} characters, all together.`,
  ],
} satisfies Record<string, [z.ZodObject, string]>;
export type RequestSchemaName = keyof typeof REQUEST_SCHEMAS;

/** Query parameters (each property one parameter), as the services parse them. */
const QUERY_SCHEMAS = {
  ListPage,
} satisfies Record<string, z.ZodObject>;
export type QuerySchemaName = keyof typeof QUERY_SCHEMAS;

/** Answer bodies, as the services send them. */
const RESPONSE_SCHEMAS = {
  Me: [Me, 'The caller and their workspace.'],
  User,
  Status,
  Queue: [Queue, 'A queue with its statuses (in order) and the caller\'s effective role on it.'],
  StatusRef,
  Issue,
  IssueSummary: [IssueSummary, `An issue as search returns it: the fields of Issue, the description cut to its first ${ISSUE_READ_LIMITS.searchDescription} characters.`],
  IssueRef: [IssueRef, 'Another issue, as links and subtasks show it.'],
  IssueLink,
  IssueDetails: [
    IssueDetails,
    `The issue with the newest ${ISSUE_READ_LIMITS.embedded} of its comments, worklogs, history entries, readable links and readable subtasks, each list oldest first, and how many of each there are (\`comments_total\`, …). The list operations (GET /api/v1/issues/{key}/comments, …) page through the rest.`,
  ],
  Comment,
  Worklog,
  HistoryEntry: [
    HistoryEntry,
    `One changed field (\`from\`, \`to\`), or \`field: "created"\` for the creation. Of a text longer than ${ISSUE_READ_LIMITS.historyText.toLocaleString('en-US')} characters (a description) only its first ${ISSUE_READ_LIMITS.historyText.toLocaleString('en-US')} are kept, marked by \`from_truncated\` / \`to_truncated\`.`,
  ],
  CommentPage: [CommentPage, 'A page of an issue\'s comments.'],
  WorklogPage: [WorklogPage, 'A page of an issue\'s worklogs.'],
  HistoryPage: [HistoryPage, 'A page of an issue\'s history.'],
  LinkPage: [LinkPage, 'A page of the links of an issue to issues the caller can read.'],
  SubtaskPage: [SubtaskPage, 'A page of the subtasks of an issue that the caller can read.'],
  WidgetFilters: [Filters, 'Filters as stored in a widget (defaults filled in).'],
  DashboardWidget: [Widget, 'A widget as stored (defaults filled in).'],
  Dashboard,
  StatisticsProgress,
  StatisticsQueue,
  StatisticsAssignee,
  StatisticsResult: [
    StatisticsResult,
    `Statistics over the matching readable issues. The breakdowns cover at most ${SEARCH_LIMIT} of them (the most recently updated); \`truncated\` says whether that cut the set, \`total\` counts them all, \`as_of\` tells how current the statistics replica is.`,
  ],
  QueueMember,
  PermissionChange,
  QueuePermissions,
  QueuePermission,
  FieldError,
} satisfies Record<string, z.ZodType | [z.ZodType, string]>;
export type ResponseSchemaName = keyof typeof RESPONSE_SCHEMAS;

const problemName = (code: ProblemCode) => code.split('_').map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');

function componentSchemas(entries: Record<string, z.ZodType | [z.ZodType, string]>, io: 'input' | 'output') {
  const registry = z.registry<{ id: string; description?: string }>();
  for (const [id, entry] of Object.entries(entries)) {
    const [schema, description] = Array.isArray(entry) ? entry : [entry, undefined];
    registry.add(schema, description ? { id, description } : { id });
  }
  const { schemas } = z.toJSONSchema(registry, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'throw',
    uri: (id) => `#/components/schemas/${id}`,
  });
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _schema, $id: _id, ...schema }]) => [id, schema as Record<string, unknown>]),
  );
}

function problemSchemas() {
  const entries = Object.fromEntries(
    (Object.keys(Problems) as ProblemCode[]).map((code) => [`${problemName(code)}Problem`, Problems[code] as z.ZodType]),
  );
  // Problem bodies share FieldError with the answers; it is emitted there.
  entries.FieldError = FieldError;
  const schemas = componentSchemas(entries, 'output');
  delete schemas.FieldError;
  return schemas;
}

const HEADERS = {
  'Retry-After': { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'integer', minimum: 0 } },
  'WWW-Authenticate': { description: 'The Bearer challenge (RFC 6750).', required: true, schema: { type: 'string' } },
  'RateLimit-Limit': { description: 'Requests allowed per token and minute.', schema: { type: 'integer', minimum: 1 } },
  'RateLimit-Remaining': { description: 'Requests left in the current minute.', schema: { type: 'integer', minimum: 0 } },
  [SEARCH_TRUNCATED_HEADER]: {
    description: `\`true\` when more issues matched than the ${SEARCH_LIMIT} returned (narrow the filters to see the others), else \`false\`.`,
    required: true,
    schema: { type: 'string', enum: ['true', 'false'] },
  },
} as const;
const header = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

/** When each problem is answered, and the headers that come with it. */
const PROBLEM_RESPONSES: Record<ProblemCode, { description: string; headers?: Array<keyof typeof HEADERS> }> = {
  unauthorized: { description: 'The token is missing, malformed, unknown or revoked, or its owner is deactivated.', headers: ['WWW-Authenticate'] },
  forbidden: { description: 'The caller can see the object but their role does not allow this.' },
  not_found: { description: 'The object does not exist or is hidden from the caller (both answer alike).' },
  version_conflict: { description: 'The `version` sent is not the issue\'s current one (given in the body): re-read the issue and reconsider the change.' },
  last_active_admin: { description: 'The change would demote or deactivate the last active admin of the workspace.' },
  queue_key_taken: { description: 'The queue key is already used in this workspace.' },
  precondition_failed: { description: '`If-Match` names another version of the issue than its current one (given in the body): re-read the issue and reconsider the change.' },
  payload_too_large: { description: 'The body is larger than 1 MiB.' },
  bad_request: { description: 'The request is not valid HTTP (answered before any routing, then the connection is closed).' },
  request_timeout: { description: 'The request did not arrive in time: the headers within 10 s, the body within 10 s of the headers. The connection is closed.' },
  headers_too_large: { description: 'The request line and headers are larger than 16 KiB.' },
  validation_failed: {
    description:
      'Invalid input: malformed JSON, a body without `Content-Type: application/json`, a body that is not UTF-8 or past the nesting, member or element limits, a lone surrogate in a string, an unknown field, a value out of range, or a path id that is not an integer from 1 to 2147483647. `errors` lists every failing field.',
  },
  idempotency_key_reused: { description: 'The `Idempotency-Key` was already used by this caller within 24 hours for another request (another operation, path or body).' },
  rate_limited: {
    description: 'Too many requests for this token in the current minute, or too many failed authentications (60 a minute) from this client address.',
    headers: ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining'],
  },
  service_unavailable: { description: 'A service this request needs is down or did not answer in time.', headers: ['Retry-After'] },
  statistics_unavailable: { description: 'The statistics service is down, or its replica is being built.', headers: ['Retry-After'] },
};

const problemResponses = () =>
  Object.fromEntries(
    (Object.keys(PROBLEM_RESPONSES) as ProblemCode[]).map((code) => {
      const { description, headers } = PROBLEM_RESPONSES[code];
      return [
        problemName(code),
        {
          description: `\`${code}\`: ${description}`,
          ...(headers ? { headers: Object.fromEntries(headers.map((h) => [h, header(h)])) } : {}),
          content: { 'application/problem+json': { schema: ref(`${problemName(code)}Problem`) } },
        },
      ];
    }),
  );

const PARAMETER_NAMES: Record<PathParam, string> = { key: 'IssueKey', queue_id: 'QueueId', user_id: 'UserId', dashboard_id: 'DashboardId' };
const parameterComponents = () =>
  Object.fromEntries(
    (Object.keys(PARAMETER_NAMES) as PathParam[]).map((param) => {
      const { $schema: _schema, description, examples, ...schema } = z.toJSONSchema(PATH_PARAMETERS[param]);
      return [PARAMETER_NAMES[param], { name: param, in: 'path', required: true, description, example: (examples as unknown[])[0], schema }];
    }),
  );

export interface ApiOperation {
  method: HttpMethod;
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  /** Who may call it (the spec's "rights needed"). */
  rights: string;
  service: ServiceName;
  body?: RequestSchemaName;
  /** Query parameters (none when absent); unknown ones are refused (422). */
  query?: QuerySchemaName;
  /** The answer: one `schema`, or a list of them (`list`, at most `maxItems`); none for the document itself. */
  success: { status: 200 | 201; description: string; schema?: ResponseSchemaName; list?: true; maxItems?: number; headers?: Array<keyof typeof HEADERS> };
  /** Refusals beyond those every authenticated operation may answer. */
  errors?: ProblemCode[];
  /** Served without a token (only the document itself). */
  public?: true;
}

/** GET /api/v1/issues/{key}/<list>: a keyset page of one of the lists an issue read embeds the newest of. */
function listOperation(list: string, operationId: string, summary: string, schema: ResponseSchemaName): ApiOperation[] {
  return [
    {
      method: 'get', path: `/api/v1/issues/{key}/${list}`, operationId, tag: 'Issues', service: 'issues',
      summary, rights: 'read on the issue\'s queue', query: 'ListPage',
      errors: ['not_found'],
      success: { status: 200, description: `At most \`limit\` items after \`after_id\`, the total, and where the next page starts.`, schema },
    },
  ];
}

/**
 * Every operation of /api/v1: the spec's endpoints, the list operations that page through
 * what an issue read embeds only the newest of (EXTENSION_OPERATIONS), and the document itself.
 */
export const API_OPERATIONS: readonly ApiOperation[] = [
  {
    method: 'get', path: '/api/v1/me', operationId: 'getMe', tag: 'Users', service: 'access',
    summary: 'The current user and their workspace', rights: 'a valid token',
    success: { status: 200, description: 'The caller.', schema: 'Me' },
  },
  {
    method: 'get', path: '/api/v1/users', operationId: 'listUsers', tag: 'Users', service: 'access',
    summary: 'Members of the current workspace, deactivated ones included', rights: 'member of the workspace',
    success: { status: 200, description: 'The users, by id.', schema: 'User', list: true },
  },
  {
    method: 'patch', path: '/api/v1/users/{user_id}', operationId: 'updateUser', tag: 'Users', service: 'access',
    summary: 'Change the name, role or activity of a user; the last active admin is protected', rights: 'workspace admin only (a member gets 403 before the body is looked at)',
    body: 'UserChanges', errors: ['forbidden', 'not_found', 'last_active_admin'],
    success: { status: 200, description: 'The user after the change.', schema: 'User' },
  },
  {
    method: 'get', path: '/api/v1/queues', operationId: 'listQueues', tag: 'Queues', service: 'issues',
    summary: 'Accessible queues with the caller\'s effective rights on them', rights: 'any member; only accessible queues are listed',
    success: { status: 200, description: 'The queues the caller can read.', schema: 'Queue', list: true },
  },
  {
    method: 'post', path: '/api/v1/queues', operationId: 'createQueue', tag: 'Queues', service: 'issues',
    summary: 'Create a queue with the standard statuses (Open, In progress, In review, Done, Cancelled)', rights: 'workspace admin',
    body: 'QueueCreate', errors: ['forbidden', 'queue_key_taken'],
    success: { status: 201, description: 'The new queue.', schema: 'Queue' },
  },
  {
    method: 'patch', path: '/api/v1/queues/{queue_id}', operationId: 'updateQueue', tag: 'Queues', service: 'issues',
    summary: 'Change the name and description of a queue', rights: '`admin` of the queue or of the workspace',
    body: 'QueueSettings', errors: ['forbidden', 'not_found'],
    success: { status: 200, description: 'The queue after the change.', schema: 'Queue' },
  },
  {
    method: 'get', path: '/api/v1/statuses', operationId: 'listStatuses', tag: 'Queues', service: 'issues',
    summary: 'Statuses of the accessible queues', rights: 'read right on the respective queue',
    success: { status: 200, description: 'The statuses, by queue and position.', schema: 'Status', list: true },
  },
  {
    method: 'get', path: '/api/v1/queues/{queue_id}/permissions', operationId: 'listQueuePermissions', tag: 'Permissions', service: 'access',
    summary: 'Members with their explicit and inherited roles, and the history of permission changes', rights: '`admin` of the queue or of the workspace',
    errors: ['forbidden', 'not_found'],
    success: { status: 200, description: 'The queue\'s permissions.', schema: 'QueuePermissions' },
  },
  {
    method: 'put', path: '/api/v1/queues/{queue_id}/permissions/{user_id}', operationId: 'setQueuePermission', tag: 'Permissions', service: 'access',
    summary: 'Grant or change a role on the queue, in force for the very next request', rights: '`admin` of the queue or of the workspace; the user belongs to the same workspace',
    body: 'QueuePermissionInput', errors: ['forbidden', 'not_found'],
    success: { status: 200, description: 'The user\'s permission afterwards.', schema: 'QueuePermission' },
  },
  {
    method: 'delete', path: '/api/v1/queues/{queue_id}/permissions/{user_id}', operationId: 'revokeQueuePermission', tag: 'Permissions', service: 'access',
    summary: 'Revoke the explicit role; workspace admins keep their inherited `admin`', rights: '`admin` of the queue or of the workspace',
    errors: ['forbidden', 'not_found'],
    success: { status: 200, description: 'The user\'s permission afterwards.', schema: 'QueuePermission' },
  },
  {
    method: 'post', path: '/api/v1/issues', operationId: 'createIssue', tag: 'Issues', service: 'issues',
    summary: 'Create an issue in a queue (in its first open status)', rights: '`read-write` or `admin` on the queue given by `queue_id` (a queue that is not readable, or does not exist, is 403)',
    body: 'IssueCreate', errors: ['forbidden'],
    success: { status: 201, description: 'The new issue, version 1.', schema: 'Issue' },
  },
  {
    method: 'post', path: '/api/v1/issues/search', operationId: 'searchIssues', tag: 'Issues', service: 'issues',
    summary: `Search by text and filters, newest change first, at most ${SEARCH_LIMIT} results`, rights: 'read on the selected queues (naming a queue that is not readable is 403)',
    body: 'Filters', errors: ['forbidden'],
    success: {
      status: 200,
      description: `The matching readable issues, each without comments, worklogs or history and with at most the first ${ISSUE_READ_LIMITS.searchDescription} characters of its description.`,
      schema: 'IssueSummary',
      list: true,
      maxItems: SEARCH_LIMIT,
      headers: [SEARCH_TRUNCATED_HEADER],
    },
  },
  {
    method: 'get', path: '/api/v1/issues/{key}', operationId: 'getIssue', tag: 'Issues', service: 'issues',
    summary: `An issue with its newest comments, worklogs, history, accessible links and subtasks (${ISSUE_READ_LIMITS.embedded} of each at most, with their totals)`, rights: 'read on the issue\'s queue',
    errors: ['not_found'],
    success: { status: 200, description: 'The issue.', schema: 'IssueDetails' },
  },
  ...listOperation('comments', 'listComments', 'Comments of an issue, oldest first, a page at a time', 'CommentPage'),
  ...listOperation('worklogs', 'listWorklogs', 'Worklogs of an issue, oldest first, a page at a time', 'WorklogPage'),
  ...listOperation('history', 'listHistory', 'History of an issue, oldest first, a page at a time', 'HistoryPage'),
  ...listOperation('links', 'listLinks', 'Links of an issue to issues the caller can read, oldest first, a page at a time', 'LinkPage'),
  ...listOperation('subtasks', 'listSubtasks', 'Subtasks of an issue that the caller can read, by id, a page at a time', 'SubtaskPage'),
  {
    method: 'patch', path: '/api/v1/issues/{key}', operationId: 'updateIssue', tag: 'Issues', service: 'issues',
    summary: 'Change fields or move the issue to a status of its queue', rights: '`read-write` or `admin` on the queue',
    body: 'IssueUpdate', errors: ['forbidden', 'not_found', 'version_conflict'],
    success: { status: 200, description: 'The issue after the change; `version` grows by one when something changed.', schema: 'Issue' },
  },
  {
    method: 'post', path: '/api/v1/issues/{key}/comments', operationId: 'addComment', tag: 'Issues', service: 'issues',
    summary: `Add a comment authored by the token owner; an issue holds at most ${ISSUE_LIMITS.commentsPerIssue.toLocaleString('en-US')} (422 beyond)`, rights: '`read-write` or `admin` on the queue',
    body: 'CommentCreate', errors: ['forbidden', 'not_found'],
    success: { status: 201, description: 'The new comment.', schema: 'Comment' },
  },
  {
    method: 'post', path: '/api/v1/issues/{key}/worklogs', operationId: 'addWorklog', tag: 'Issues', service: 'issues',
    summary: `Record 1 to 1440 whole minutes of work; an issue holds at most ${ISSUE_LIMITS.worklogsPerIssue.toLocaleString('en-US')} worklogs (422 beyond)`, rights: '`read-write` or `admin` on the queue',
    body: 'WorklogCreate', errors: ['forbidden', 'not_found'],
    success: { status: 201, description: 'The new worklog.', schema: 'Worklog' },
  },
  {
    method: 'post', path: '/api/v1/statistics', operationId: 'getStatistics', tag: 'Statistics', service: 'statistics',
    summary: `Statistics of accessible issues (at most ${SEARCH_LIMIT}; \`truncated\` reports cutting)`, rights: 'read on the respective queues (naming a queue that is not readable is 403)',
    body: 'Filters', errors: ['forbidden'],
    success: { status: 200, description: 'The statistics.', schema: 'StatisticsResult' },
  },
  {
    method: 'get', path: '/api/v1/dashboards', operationId: 'listDashboards', tag: 'Dashboards', service: 'statistics',
    summary: 'Shared dashboards with their widgets', rights: 'member; dashboards whose filters name a hidden queue are not listed',
    success: { status: 200, description: 'The dashboards the caller may see.', schema: 'Dashboard', list: true },
  },
  {
    method: 'post', path: '/api/v1/dashboards', operationId: 'createDashboard', tag: 'Dashboards', service: 'statistics',
    summary: `Create a dashboard of at most ${DASHBOARD_LIMITS.widgets} widgets; a workspace holds at most ${DASHBOARD_LIMITS.perWorkspace} (422 beyond)`, rights: 'member; filters may name only readable queues (403 otherwise)',
    body: 'DashboardInput', errors: ['forbidden'],
    success: { status: 201, description: 'The new dashboard, owned by the caller.', schema: 'Dashboard' },
  },
  {
    method: 'put', path: '/api/v1/dashboards/{dashboard_id}', operationId: 'replaceDashboard', tag: 'Dashboards', service: 'statistics',
    summary: 'Replace the name and the widgets of a dashboard', rights: 'owner of the dashboard (403 for another member who sees it); read on the queues in the filters',
    body: 'DashboardInput', errors: ['forbidden', 'not_found'],
    success: { status: 200, description: 'The dashboard after the change.', schema: 'Dashboard' },
  },
  {
    method: 'get', path: OPENAPI_PATH, operationId: 'getOpenApiDocument', tag: 'Schema', service: 'gateway', public: true,
    summary: 'This OpenAPI 3.1 document', rights: 'none: served without a token',
    success: { status: 200, description: 'The document.' },
  },
];

/** Operations beyond the specification's endpoint table: the issue list pages. */
export const EXTENSION_OPERATIONS = ['listComments', 'listWorklogs', 'listHistory', 'listLinks', 'listSubtasks'] as const;

/** Refusals any authenticated operation may answer (gateway and service alike). */
const COMMON_ERRORS: ProblemCode[] = [
  'bad_request', 'unauthorized', 'request_timeout', 'payload_too_large', 'validation_failed', 'rate_limited', 'headers_too_large', 'service_unavailable',
];

export function errorCodesOf(operation: ApiOperation): ProblemCode[] {
  if (operation.public) return [];
  const codes = [...COMMON_ERRORS, ...(operation.errors ?? [])];
  if (operation.service === 'statistics') codes.push('statistics_unavailable');
  return codes;
}

function errorResponses(operation: ApiOperation) {
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of errorCodesOf(operation)) {
    const status = PROBLEM_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    if (codes.length === 1) {
      responses[status] = { $ref: `#/components/responses/${problemName(codes[0]!)}` };
      continue;
    }
    const headers = [...new Set(codes.flatMap((code) => PROBLEM_RESPONSES[code].headers ?? []))];
    responses[status] = {
      description: codes.map((code) => `\`${code}\`: ${PROBLEM_RESPONSES[code].description}`).join(' '),
      ...(headers.length ? { headers: Object.fromEntries(headers.map((h) => [h, header(h)])) } : {}),
      content: { 'application/problem+json': { schema: { oneOf: codes.map((code) => ref(`${problemName(code)}Problem`)) } } },
    };
  }
  return responses;
}

export const pathParams = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as PathParam);

function successSchema({ success }: ApiOperation): Record<string, unknown> {
  if (!success.schema) return { type: 'object', additionalProperties: true };
  if (!success.list) return ref(success.schema);
  return { type: 'array', items: ref(success.schema), ...(success.maxItems ? { maxItems: success.maxItems } : {}) };
}

/** The zod schema of an operation's request body (undefined: it takes none). */
export const requestSchemaOf = (operation: ApiOperation): z.ZodObject | undefined =>
  operation.body ? REQUEST_SCHEMAS[operation.body][0] : undefined;

/** The zod schema of an operation's query parameters (undefined: it takes none). */
export const querySchemaOf = (operation: ApiOperation): z.ZodObject | undefined => (operation.query ? QUERY_SCHEMAS[operation.query] : undefined);

/** The query parameters of an operation as OpenAPI parameter objects, from its zod schema. */
function queryParameters(operation: ApiOperation) {
  const schema = querySchemaOf(operation);
  if (!schema) return [];
  const { properties = {} } = z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12', unrepresentable: 'throw' }) as {
    properties?: Record<string, { description?: string; examples?: unknown[] } & Record<string, unknown>>;
  };
  return Object.entries(properties).map(([name, { description, examples, ...rest }]) => ({
    name,
    in: 'query',
    required: false,
    description,
    ...(examples ? { example: examples[0] } : {}),
    schema: rest,
  }));
}

/** The zod schema of an operation's success answer (a list is an array of it). */
export function responseSchemaOf(operation: ApiOperation): z.ZodType | undefined {
  if (!operation.success.schema) return undefined;
  const entry: z.ZodType | readonly [z.ZodType, string] = RESPONSE_SCHEMAS[operation.success.schema];
  const schema = Array.isArray(entry) ? entry[0] : (entry as z.ZodType);
  return operation.success.list ? z.array(schema) : schema;
}

function operationObject(operation: ApiOperation) {
  return {
    operationId: operation.operationId,
    tags: [operation.tag],
    summary: operation.summary,
    description: `Rights needed: ${operation.rights}.`,
    ...(operation.public ? { security: [] } : {}),
    ...(pathParams(operation.path).length || operation.query
      ? {
          parameters: [
            ...pathParams(operation.path).map((p) => ({ $ref: `#/components/parameters/${PARAMETER_NAMES[p]}` })),
            ...queryParameters(operation),
          ],
        }
      : {}),
    ...(operation.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: ref(operation.body) } } } }
      : {}),
    responses: {
      [operation.success.status]: {
        description: operation.success.description,
        ...(operation.success.headers ? { headers: Object.fromEntries(operation.success.headers.map((h) => [h, header(h)])) } : {}),
        content: { 'application/json': { schema: successSchema(operation) } },
      },
      ...errorResponses(operation),
    },
  };
}

const DESCRIPTION = `The REST API of Tracker, a team issue tracker organised in workspaces.

- Every operation but this document needs \`Authorization: Bearer <token>\` (a personal token, \`trk_\` then 32 or more base62 characters). A token reads and changes only its owner's workspace, with the owner's current rights.
- Requests and answers are JSON; a request body is sent with \`Content-Type: application/json\`, at most 1 MiB. Unknown fields are rejected.
- Request bodies are UTF-8. A string or field name holding a lone UTF-16 surrogate (\`\\uD800\`–\`\\uDFFF\` without its pair) is refused with 422 \`validation_failed\` naming its path. A body that is not valid UTF-8, nests more than 32 levels, or has more than 2,000 object members or 5,000 array elements in all is refused with 422 at path \`(body)\` before it is parsed.
- Errors are RFC 9457 problem details (\`application/problem+json\`) with a stable \`code\`. An unknown path or an unserved method is 404.
- Search and statistics work on at most ${SEARCH_LIMIT} issues. A search row carries the first ${ISSUE_READ_LIMITS.searchDescription} characters of the description (\`description_truncated\` says when there is more).
- An issue read embeds the newest ${ISSUE_READ_LIMITS.embedded} of its comments, worklogs, history entries, links and subtasks, and how many there are (\`comments_total\`, …); GET /api/v1/issues/{key}/comments (worklogs, history, links, subtasks) pages through all of them with \`after_id\` and \`limit\` (1 to ${ISSUE_READ_LIMITS.pageMax}). History keeps at most ${ISSUE_READ_LIMITS.historyText.toLocaleString('en-US')} characters of a changed text. An issue holds at most ${ISSUE_LIMITS.commentsPerIssue.toLocaleString('en-US')} comments and ${ISSUE_LIMITS.worklogsPerIssue.toLocaleString('en-US')} worklogs.
- Each token may make a limited number of requests per minute (429 \`rate_limited\` with \`Retry-After\` beyond it; \`RateLimit-Limit\` and \`RateLimit-Remaining\` tell where it stands). A client address with more than 60 failed authentications in a minute gets 429 on every request for the rest of that minute.
- A request is judged when it has arrived whole: its body must follow its headers within 10 s (408 otherwise), and a token revoked or a role changed before the body's last byte no longer counts for it.
- Every answer carries \`X-Request-Id\` (a valid one sent by the client is kept) and \`Cache-Control: no-store\`.
- Optimistic concurrency: an issue has a \`version\`; send the last one read in an update. On 409 \`version_conflict\`, re-read the issue and reconsider the change, a bounded number of times.`;

let built: Record<string, unknown> | undefined;

/** The OpenAPI 3.1 document (built once; callers must not change it). */
export function openApiDocument(): Record<string, any> {
  built ??= buildDocument();
  return built;
}

function buildDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of API_OPERATIONS) {
    paths[operation.path] = { ...paths[operation.path], [operation.method]: operationObject(operation) };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Tracker API', version: API_VERSION, description: DESCRIPTION },
    servers: [{ url: '/', description: 'The gateway this document was read from.' }],
    security: [{ bearerAuth: [] }],
    tags: [...new Set(API_OPERATIONS.map((o) => o.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'A personal token of a workspace user.' },
      },
      parameters: parameterComponents(),
      headers: HEADERS,
      responses: problemResponses(),
      schemas: {
        ...componentSchemas(REQUEST_SCHEMAS, 'input'),
        ...componentSchemas(RESPONSE_SCHEMAS, 'output'),
        ...problemSchemas(),
      },
    },
  };
}
