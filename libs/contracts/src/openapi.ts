import { z } from 'zod';
import { InvitedUser, PersonalToken, PersonalTokenCreated, SetupLink, SetupLinkRequest, TokenCreate, TokenRevoked, UserInvite } from './accounts';
import { Dashboard, DashboardInput, DASHBOARD_LIMITS, Widget } from './dashboards';
import { EVENT_STREAM_EXAMPLE, IDEMPOTENCY_KEY_EXAMPLES, IF_MATCH_EXAMPLE, IF_NONE_MATCH_EXAMPLE, PROBLEM_EXAMPLES, REQUEST_EXAMPLES, RESPONSE_EXAMPLES } from './examples';
import {
  CommentAddedEvent,
  EVENT_LIMITS,
  EventComment,
  EventIssue,
  EventPage,
  EventPermission,
  EventQueue,
  EventsQuery,
  EventStreamQuery,
  EventUser,
  EventWorklog,
  IssueCreatedEvent,
  IssuePrevious,
  IssueUpdatedEvent,
  PermissionChangedEvent,
  PermissionPrevious,
  PublicEvent,
  QueueCreatedEvent,
  QueuePrevious,
  QueueUpdatedEvent,
  UserCreatedEvent,
  UserPrevious,
  UserUpdatedEvent,
  WorklogAddedEvent,
} from './events';
import { Filters, LEGACY_SEARCH_TRUNCATED_HEADER, SEARCH_LIMIT, SEARCH_TOTAL_HEADER, SEARCH_TRUNCATED_HEADER } from './filters';
import { IDEMPOTENCY, IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, IdempotencyKey } from './idempotency';
import {
  Comment,
  CommentCreate,
  CommentPage,
  HISTORY_FIELDS,
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
import { PermissionChange, PermissionChangePage, QueueMember, QueuePermission, QueuePermissionInput, QueuePermissions } from './permissions';
import { FieldError, PROBLEM_CODES, Problems, type ProblemCode } from './problem';
import { PATH_PARAMETERS, type PathParam } from './path-params';
import { Queue, QueueCreate, QueueSettings, Status } from './queues';
import { DashboardStatistics, StatisticsAssignee, StatisticsProgress, StatisticsQueue, StatisticsResult } from './statistics';
import { DeliveriesQuery, Delivery, DeliveryAttempt, DeliveryPage, PING_EVENT_TYPE, Webhook, WebhookCreate, WebhookCreated, WebhookDeleted, WEBHOOK_LIMITS, WebhookUpdate } from './webhooks';
import { Me, User, UserChanges } from './users';

/**
 * The published OpenAPI 3.1 document of /api/v1 (GET /api/v1/openapi.json, served without a token),
 * built from the zod schemas the services validate requests with and type answers by.
 *
 * Request bodies are published as the schemas accept them (input): a field with a default is
 * optional, and the default is stated in its description, not as the `default` keyword, because
 * stock generators (openapi-typescript with its default `defaultNonNullable`) make every property
 * with a `default` required, which is right for answers and wrong for requests. Answers are
 * published as they leave (output) and open: no `additionalProperties: false`, since within 1.x
 * fields may be added to them (the compatibility policy in `info.description`).
 */

/**
 * The published schema's version: 1.0.0 for as long as the API is v1, as the API's own
 * documentation says (clients check it). Additions within v1 are announced in the
 * description (CHANGES_WITHIN_V1) and in docs/api-changelog.md, never by this number.
 */
export const API_VERSION = '1.0.0';
export const OPENAPI_PATH = '/api/v1/openapi.json';

/** Who serves an operation: the gateway itself or the service it forwards to. */
export type ServiceName = 'gateway' | 'access' | 'issues' | 'statistics' | 'notifications';
export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

type JsonSchema = Record<string, unknown>;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Request bodies, as the services parse them. */
const REQUEST_SCHEMAS = {
  QueueCreate: [QueueCreate, 'A new queue; it starts with the standard statuses. The key is stored upper-case and is unique in the workspace (case-insensitively).'],
  QueueSettings: [QueueSettings, 'The settings to change; absent ones stay as they are.'],
  QueuePermissionInput: [QueuePermissionInput, 'The explicit role to grant.'],
  UserChanges: [UserChanges, 'The changes to make to a user; absent fields stay as they are.'],
  UserInvite: [UserInvite, 'A colleague to invite: their name, their email (their sign-in name) and their workspace role.'],
  SetupLinkRequest: [SetupLinkRequest, 'Optional: `email` gives the user an email, or changes it, before the link is made. Without it the user keeps theirs; a user who has none must be given one (422 at `email`).'],
  TokenCreate: [TokenCreate, 'A new personal token: what it is for, and in how many days it expires (`null`: never).'],
  IssueCreate: [IssueCreate, 'A new issue: only `queue_id` and `title` are needed. `parent_id` names a readable issue of the workspace; `assignee_id` an active user.'],
  IssueUpdate: [
    IssueUpdate,
    'Send only the fields to change; `null` clears `assignee_id`, `parent_id` or `due_date`. Send `version` (the one last read) to be protected against lost updates: a stale one is 409 `version_conflict`.',
  ],
  CommentCreate: [CommentCreate, 'A new comment, authored by the caller.'],
  WorklogCreate: [WorklogCreate, 'Work to record, authored by the caller: 1 to 1440 whole minutes.'],
  Filters: [
    Filters,
    `Selects issues for search, statistics and dashboard widgets. Every filter given narrows the set (AND). An empty id list (\`queue_ids\`, \`status_ids\`, \`assignee_ids\`) selects nothing, an absent one does not filter; a null \`search\`, \`priority\`, \`category\` or \`label\`, a false \`mine\` or \`overdue\` and a blank search do not filter either. At most ${SEARCH_LIMIT} issues are used.`,
  ],
  Widget: [Widget, 'A widget of a dashboard: what to show of the issues its filters select.'],
  DashboardInput: [
    DashboardInput,
    `At most ${DASHBOARD_LIMITS.widgets} widgets, whose filters name at most ${DASHBOARD_LIMITS.ids} ids and whose titles, searches and labels hold at most ${DASHBOARD_LIMITS.text} characters, all together.`,
  ],
  WebhookCreate: [WebhookCreate, 'A new webhook: where to send which events.'],
  WebhookUpdate: [WebhookUpdate, 'Send only the fields to change.'],
} satisfies Record<string, [z.ZodObject, string]>;
export type RequestSchemaName = keyof typeof REQUEST_SCHEMAS;

/** Query parameters (each property one parameter), as the services parse them. */
const QUERY_SCHEMAS = {
  ListPage,
  EventsQuery,
  EventStreamQuery,
  DeliveriesQuery,
} satisfies Record<string, z.ZodObject>;
export type QuerySchemaName = keyof typeof QUERY_SCHEMAS;

/** Answer bodies, as the services send them. */
const RESPONSE_SCHEMAS = {
  Me: [Me, 'The caller and their workspace.'],
  User: [User, 'A user of the caller\'s workspace.'],
  InvitedUser: [InvitedUser, 'The invited user, and the setup link to hand to them (shown this once).'],
  SetupLink: [SetupLink, 'A setup link: the person opens it to set a password and sign in, once, within 72 hours. Any earlier link of the user is void.'],
  PersonalToken: [PersonalToken, 'One of the caller\'s personal tokens, as listed: never its secret.'],
  PersonalTokenCreated: [PersonalTokenCreated, 'The new personal token, and its secret (`token`), shown this once.'],
  TokenRevoked: [TokenRevoked, 'The revoked token: refused from the very next request on, by every gateway.'],
  Status: [Status, 'A status of a queue\'s workflow.'],
  Queue: [Queue, 'A queue with its statuses (in order) and the caller\'s effective role on it.'],
  StatusRef: [StatusRef, 'A status as an issue carries it.'],
  Issue: [Issue, 'An issue, as creation and update answer it.'],
  IssueSummary: [IssueSummary, `An issue as search returns it: the fields of Issue, the description cut to its first ${ISSUE_READ_LIMITS.searchDescription} characters.`],
  IssueRef: [IssueRef, 'Another issue, as links and subtasks show it.'],
  IssueLink: [IssueLink, 'A link between two issues (one mentions the other\'s key), with the other issue.'],
  IssueDetails: [
    IssueDetails,
    `The issue with the newest ${ISSUE_READ_LIMITS.embedded} of its comments, worklogs, history entries, readable links and readable subtasks, each list oldest first, and how many of each there are (\`comments_total\`, …). The list operations (GET /api/v1/issues/{key}/comments, …) page through the rest.`,
  ],
  Comment: [Comment, 'A comment on an issue.'],
  Worklog: [Worklog, 'Work recorded on an issue.'],
  HistoryEntry: [
    HistoryEntry,
    `One changed field with its value before (\`from\`) and after (\`to\`), or \`field: "created"\` (both null) for the creation. History records the fields ${HISTORY_FIELDS.slice(1).map((f) => `\`${f}\``).join(', ')}. Of a text longer than ${ISSUE_READ_LIMITS.historyText.toLocaleString('en-US')} characters (a description) only its first ${ISSUE_READ_LIMITS.historyText.toLocaleString('en-US')} are kept, marked by \`from_truncated\` / \`to_truncated\`.`,
  ],
  CommentPage: [CommentPage, 'A page of an issue\'s comments.'],
  WorklogPage: [WorklogPage, 'A page of an issue\'s worklogs.'],
  HistoryPage: [HistoryPage, 'A page of an issue\'s history.'],
  LinkPage: [LinkPage, 'A page of the links of an issue to issues the caller can read.'],
  SubtaskPage: [SubtaskPage, 'A page of the subtasks of an issue that the caller can read.'],
  WidgetFilters: [Filters, 'Filters as stored in a widget (defaults filled in). An empty id list selects nothing: the widget shows nothing.'],
  DashboardWidget: [Widget, 'A widget as stored (defaults filled in).'],
  Dashboard: [Dashboard, 'A dashboard, shared with the whole workspace.'],
  StatisticsProgress: [StatisticsProgress, `The counted issues (at most ${SEARCH_LIMIT}) by status category.`],
  StatisticsQueue: [StatisticsQueue, 'The counted issues of one queue.'],
  StatisticsAssignee: [StatisticsAssignee, 'The counted issues of one assignee (or of nobody).'],
  StatisticsResult: [
    StatisticsResult,
    `Statistics over the matching readable issues. \`total\` counts every match; the breakdowns (\`progress\`, \`time\`, \`queues\`, \`assignees\`) cover at most ${SEARCH_LIMIT} of them (the most recently updated), and \`truncated\` says whether that cut the set. \`as_of\` tells how current the statistics replica is.`,
  ],
  DashboardStatistics: [DashboardStatistics, 'The statistics of each widget of a dashboard, in the widgets\' order.'],
  QueueMember: [QueueMember, 'A user of the workspace with their roles on one queue.'],
  PermissionChange: [PermissionChange, 'One grant, change or revoke of an explicit role on a queue.'],
  QueuePermissions: [
    QueuePermissions,
    `Who may do what on a queue, and how that came to be: the newest ${ISSUE_READ_LIMITS.embedded} permission changes, oldest first, and how many there are (\`history_total\`). GET /api/v1/queues/{queue_id}/permissions/history pages through the rest.`,
  ],
  PermissionChangePage: [PermissionChangePage, 'A page of a queue\'s permission history.'],
  QueuePermission: [QueuePermission, 'A user\'s permission on a queue after a change.'],
  Webhook: [Webhook, 'A webhook, as listed: never its secret.'],
  WebhookCreated: [WebhookCreated, 'The new webhook, and its signing secret (`secret`), shown this once.'],
  WebhookDeleted: [WebhookDeleted, 'The deleted webhook.'],
  DeliveryAttempt: [DeliveryAttempt, 'One attempt to deliver an event: what the endpoint answered, and how fast.'],
  Delivery: [Delivery, 'One event sent, or to be sent, to a webhook, with its newest attempts.'],
  DeliveryPage: [DeliveryPage, 'A page of a webhook\'s delivery log.'],
  FieldError: [FieldError, 'One failing field of a 422 `validation_failed`.'],
  EventIssue: [EventIssue, `An issue as an event carries it: as GET /api/v1/issues/{key} answers it without the embedded lists; a description that would take the event past ${EVENT_LIMITS.payloadBytes / 1024} KiB is cut and marked.`],
  EventComment: [EventComment, 'A comment as an event carries it: as the API answers it, with its issue\'s key.'],
  EventWorklog: [EventWorklog, 'A worklog as an event carries it: as the API answers it, with its issue\'s key.'],
  EventQueue: [EventQueue, 'A queue as an event carries it: as the API answers it, without `role` and `role_source`, which are each caller\'s own.'],
  EventPermission: [EventPermission, 'A user\'s permission on a queue as an event carries it: as PUT /api/v1/queues/{queue_id}/permissions/{user_id} answers it.'],
  EventUser: [EventUser, 'A user as an event carries it: as GET /api/v1/users answers it.'],
  IssuePrevious: [IssuePrevious, 'The old values of what an issue update changed.'],
  QueuePrevious: [QueuePrevious, 'The old values of what a queue update changed.'],
  PermissionPrevious: [PermissionPrevious, 'The old values of what a permission change changed.'],
  UserPrevious: [UserPrevious, 'The old values of what a user update changed.'],
  IssueCreatedEvent: [IssueCreatedEvent, 'An issue was created.'],
  IssueUpdatedEvent: [IssueUpdatedEvent, 'An issue changed: its fields or its status. `data.issue.version` orders the updates of one issue: drop an update older than what you hold.'],
  CommentAddedEvent: [CommentAddedEvent, 'A comment was added to an issue.'],
  WorklogAddedEvent: [WorklogAddedEvent, 'Work was recorded on an issue.'],
  QueueCreatedEvent: [QueueCreatedEvent, 'A queue was created.'],
  QueueUpdatedEvent: [QueueUpdatedEvent, 'A queue\'s name or description changed.'],
  PermissionChangedEvent: [PermissionChangedEvent, 'A user\'s explicit role on a queue was granted, changed or revoked. Only the queue\'s admins (and workspace admins) see it.'],
  UserCreatedEvent: [UserCreatedEvent, 'A user joined the workspace.'],
  UserUpdatedEvent: [UserUpdatedEvent, 'A user\'s name, workspace role, activity or email changed.'],
  PublicEvent: [
    PublicEvent,
    `A public event: \`{id, type, timestamp, workspace_id, data}\`, told apart by \`type\`. \`data\` holds the changed object under its kind\'s name as the API answers it, \`actor_id\`, and on changes \`previous\`. At most ${EVENT_LIMITS.payloadBytes / 1024} KiB of JSON: longer texts are cut, each with \`<field>_truncated: true\` beside it.`,
  ],
  EventPage: [EventPage, 'A page of the event feed, and where the next one starts.'],
} satisfies Record<string, [z.ZodType, string]>;
export type ResponseSchemaName = keyof typeof RESPONSE_SCHEMAS;

/**
 * Refusals only /auth answers (sign-in and the setup form, for browsers: README), never an
 * operation of this document: their problem bodies are not published here.
 */
export const AUTH_ONLY_PROBLEMS: readonly ProblemCode[] = ['invalid_credentials', 'invalid_setup_code', 'cross_site_request'];

const problemName = (code: ProblemCode) => code.split('_').map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');

/** Calls `visit` on a JSON schema and every schema inside it (properties, items, alternatives, …). */
function walkSchema(schema: unknown, visit: (node: JsonSchema) => void): void {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return;
  const node = schema as JsonSchema;
  visit(node);
  for (const key of ['properties', 'patternProperties', '$defs']) {
    for (const child of Object.values((node[key] as Record<string, unknown> | undefined) ?? {})) walkSchema(child, visit);
  }
  for (const key of ['items', 'additionalProperties', 'not', 'contains', 'propertyNames']) walkSchema(node[key], visit);
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) for (const child of (node[key] as unknown[] | undefined) ?? []) walkSchema(child, visit);
}

/**
 * A schema as the document publishes it. Input (requests): a `default` moves into the
 * description (see the module comment). Output (answers): open objects, and no `default`
 * (an answer always carries the field).
 */
function published(schema: JsonSchema, io: 'input' | 'output'): JsonSchema {
  walkSchema(schema, (node) => {
    if ('default' in node) {
      if (io === 'input') {
        const stated = `Default: \`${JSON.stringify(node.default)}\`.`;
        node.description = node.description ? `${String(node.description)} ${stated}` : stated;
      }
      delete node.default;
    }
    if (io === 'output' && node.additionalProperties === false) delete node.additionalProperties;
  });
  return schema;
}

function componentSchemas(entries: Record<string, [z.ZodType, string]>, io: 'input' | 'output') {
  const registry = z.registry<{ id: string }>();
  for (const [id, [schema]] of Object.entries(entries)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'throw',
    uri: (id) => `#/components/schemas/${id}`,
  });
  // The registry's own metadata is not emitted: each component gets its description here.
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _schema, $id: _id, ...schema }]) => [id, published({ description: entries[id]![1], ...schema } as JsonSchema, io)]),
  );
}

function problemSchemas() {
  const entries: Record<string, [z.ZodType, string]> = Object.fromEntries(
    (Object.keys(Problems) as ProblemCode[]).filter((code) => !AUTH_ONLY_PROBLEMS.includes(code)).map((code) => [
      `${problemName(code)}Problem`,
      [Problems[code] as z.ZodType, `The problem details (RFC 9457) of \`${code}\`, HTTP ${PROBLEM_CODES[code].status}: ${PROBLEM_RESPONSES[code].description}`],
    ]),
  );
  // Problem bodies share FieldError with the answers; it is emitted there.
  entries.FieldError = RESPONSE_SCHEMAS.FieldError;
  const schemas = componentSchemas(entries, 'output');
  delete schemas.FieldError;
  return schemas;
}

const REQUEST_ID_PATTERN = '^[A-Za-z0-9._:-]{1,128}$';
const REQUEST_ID_DESCRIPTION =
  'The id of this request: the `X-Request-Id` the client sent when it is 1 to 128 letters, digits and `._:-`, else a new UUID. It is logged with the request: quote it when reporting a problem.';
const ETAG_PATTERN = '^"[1-9][0-9]*-[0-9a-f]{16}"$';

const HEADERS = {
  'X-Request-Id': { description: REQUEST_ID_DESCRIPTION, required: true, schema: { type: 'string', pattern: REQUEST_ID_PATTERN } },
  'RateLimit-Limit': { description: 'Requests allowed per token and minute (absent when no limit applies).', schema: { type: 'integer', minimum: 1 } },
  'RateLimit-Remaining': { description: 'Requests left to this token in the current minute.', schema: { type: 'integer', minimum: 0 } },
  'Retry-After': { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'integer', minimum: 0 } },
  'WWW-Authenticate': { description: 'The Bearer challenge (RFC 6750).', required: true, schema: { type: 'string' } },
  ETag: {
    description:
      'The entity tag of this answer: `"<version>-<16 lowercase hex digits>"`, the issue\'s `version`, a dash and the first 16 hex digits of the SHA-256 of the answer body. Send it in `If-None-Match` when reading the issue again (304 while the answer would be the same) or in `If-Match` when changing it (412 once the issue has another version).',
    required: true,
    schema: { type: 'string', pattern: ETAG_PATTERN },
  },
  [IDEMPOTENT_REPLAYED_HEADER]: {
    description: `Sent when the request carried an \`${IDEMPOTENCY_KEY_HEADER}\`: \`true\` when this is the stored answer of an earlier request with the same key and the same request, replayed without writing again; \`false\` on the answer of the write itself. Absent when the request carried no key.`,
    schema: { type: 'string', enum: ['true', 'false'] },
  },
  [SEARCH_TOTAL_HEADER]: {
    description: `How many readable issues matched, counted up to ${SEARCH_LIMIT}: the number of results unless \`${SEARCH_TRUNCATED_HEADER}\` is \`true\`.`,
    required: true,
    schema: { type: 'integer', minimum: 0, maximum: SEARCH_LIMIT },
  },
  [SEARCH_TRUNCATED_HEADER]: {
    description: `\`true\` when more issues matched than the ${SEARCH_LIMIT} returned (narrow the filters to see the others), else \`false\`.`,
    required: true,
    schema: { type: 'string', enum: ['true', 'false'] },
  },
  [LEGACY_SEARCH_TRUNCATED_HEADER]: {
    description: `The name \`${SEARCH_TRUNCATED_HEADER}\` had in API 1.0; sent with the same value. Deprecated: read \`${SEARCH_TRUNCATED_HEADER}\`.`,
    required: true,
    deprecated: true,
    schema: { type: 'string', enum: ['true', 'false'] },
  },
} as const;
type HeaderName = keyof typeof HEADERS;
const header = (name: HeaderName) => ({ $ref: `#/components/headers/${name}` });

/** Refusals answered while the request head is still being read: no request id is assigned yet. */
const REFUSED_BEFORE_ROUTING: ReadonlySet<ProblemCode> = new Set(['bad_request', 'request_timeout', 'headers_too_large']);
const REQUEST_ID_IF_ASSIGNED = {
  description: `${REQUEST_ID_DESCRIPTION} Absent when the server refused the request while still reading its head.`,
  schema: { type: 'string', pattern: REQUEST_ID_PATTERN },
};

/** When each problem is answered, and the headers that come with it (beside `X-Request-Id`). */
const PROBLEM_RESPONSES: Record<ProblemCode, { description: string; headers?: HeaderName[] }> = {
  unauthorized: { description: 'The token is missing, malformed, unknown or revoked, or its owner is deactivated.', headers: ['WWW-Authenticate'] },
  forbidden: { description: 'The caller can see the object but their role does not allow this.' },
  not_found: { description: 'The object does not exist or is hidden from the caller (both answer alike).' },
  version_conflict: { description: 'The `version` sent is not the issue\'s current one (given in the body): re-read the issue and reconsider the change.' },
  last_active_admin: { description: 'The change would demote or deactivate the last active admin of the workspace.' },
  queue_key_taken: { description: 'The queue key is already used in this workspace.' },
  email_taken: { description: 'Another user already has this email (emails are unique in the installation, whatever their case).' },
  session_required: { description: 'Personal tokens are made by a person signed in: the request must come with a session\'s token (POST /auth/token), not a personal token.' },
  invalid_credentials: { description: 'Sign-in refused: the email or the password is not right (an unknown email, a wrong password and a deactivated user answer alike).' },
  invalid_setup_code: { description: 'The setup link\'s code is unknown, used, expired or superseded by a newer link.' },
  cross_site_request: { description: 'A request to /auth from another site (its Origin or Sec-Fetch-Site) is refused.' },
  cursor_expired: {
    description:
      'The cursor (`after`) points before the oldest event kept: events after it were deleted (they are kept 7 days at least). Start again without `after`, from the oldest event kept, and re-read through the API what you keep a copy of.',
  },
  precondition_failed: {
    description:
      '`If-Match` names no tag of the issue\'s current version (given in the body): another change came first, or the tag is weak. Nothing was changed: re-read the issue and reconsider the change.',
  },
  payload_too_large: { description: 'The body is larger than 1 MiB.' },
  bad_request: { description: 'The request is not valid HTTP (answered before any routing, then the connection is closed).' },
  request_timeout: { description: 'The request did not arrive in time: the headers within 10 s, the body within 10 s of the headers. The connection is closed.' },
  headers_too_large: { description: 'The request line and headers are larger than 16 KiB.' },
  validation_failed: {
    description:
      'Invalid input: malformed JSON, a body without `Content-Type: application/json`, a body that is not UTF-8 or past the nesting, member or element limits, a lone surrogate in a string, an unknown field, a value out of range, a path id that is not an integer from 1 to 2147483647, or an invalid `Idempotency-Key`. `errors` lists every failing field.',
  },
  idempotency_key_reused: {
    description: `The \`${IDEMPOTENCY_KEY_HEADER}\` was already used by this caller within ${IDEMPOTENCY.replayHours} hours for another request (another operation, path or JSON body). Nothing was written: use a new key for a new request.`,
  },
  rate_limited: {
    description:
      'Too many requests for this token in the current minute, or too many failed authentications (60 a minute) from this client address; for GET /api/v1/events/stream, too many live streams open for the user (or on the server) at once.',
    headers: ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining'],
  },
  service_unavailable: { description: 'A service this request needs is down or did not answer in time.', headers: ['Retry-After'] },
  statistics_unavailable: { description: 'The statistics service is down, or its replica is being built.', headers: ['Retry-After'] },
};

/** The headers of a problem answer of these codes. */
function problemHeaders(codes: ProblemCode[]) {
  const names = [...new Set(codes.flatMap((code) => PROBLEM_RESPONSES[code].headers ?? []))];
  return {
    'X-Request-Id': codes.some((code) => REFUSED_BEFORE_ROUTING.has(code)) ? REQUEST_ID_IF_ASSIGNED : header('X-Request-Id'),
    ...Object.fromEntries(names.map((h) => [h, header(h)])),
  };
}

/** Every problem answer as a response component; the document keeps those its operations use. */
const problemResponses = () =>
  Object.fromEntries(
    (Object.keys(PROBLEM_RESPONSES) as ProblemCode[]).map((code) => [
      problemName(code),
      {
        description: `\`${code}\`: ${PROBLEM_RESPONSES[code].description}`,
        headers: problemHeaders([code]),
        content: { 'application/problem+json': { schema: ref(`${problemName(code)}Problem`), example: PROBLEM_EXAMPLES[code] } },
      },
    ]),
  );

const PARAMETER_NAMES: Record<PathParam, string> = { key: 'IssueKey', queue_id: 'QueueId', user_id: 'UserId', dashboard_id: 'DashboardId', token_id: 'TokenId', webhook_id: 'WebhookId', delivery_id: 'DeliveryId' };
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
  /** Who may call it (docs/decisions.md, Operations). */
  rights: string;
  /** More to know, after the rights, in the operation's description. */
  notes?: string;
  service: ServiceName;
  body?: RequestSchemaName;
  /** The body may be left out (no body, or `{}`): published as a request body that is not required. */
  bodyOptional?: true;
  /** Query parameters (none when absent); unknown ones are refused (422). */
  query?: QuerySchemaName;
  /**
   * Takes `Idempotency-Key`: `replayed` for a write (its first successful answer is stored
   * and replayed to a repeat), `accepted` for a POST that writes nothing (checked, no effect).
   */
  idempotency?: 'replayed' | 'accepted';
  /** Conditional requests: `read` (ETag, If-None-Match, 304) or `write` (ETag, If-Match, 412). */
  conditional?: 'read' | 'write';
  /**
   * The answer: one `schema`, or a list of them (`list`, at most `maxItems`); none for the
   * document itself; `eventStream`: a stream of Server-Sent Events (`text/event-stream`,
   * described in words: the frames are text, not JSON), which takes `Last-Event-ID`.
   */
  success: { status: 200 | 201; description: string; schema?: ResponseSchemaName; list?: true; maxItems?: number; headers?: HeaderName[]; eventStream?: true };
  /** Refusals beyond those every authenticated operation may answer. */
  errors?: ProblemCode[];
  /** Served without a token (only the document itself). */
  public?: true;
}

/** What a keyset page (query ListPage) answers. */
const PAGE_ANSWER = 'At most `limit` items after `after_id`, the total, and where the next page starts.';

/** GET /api/v1/issues/{key}/<list>: a keyset page of one of the lists an issue read embeds the newest of. */
function listOperation(list: string, operationId: string, summary: string, schema: ResponseSchemaName): ApiOperation[] {
  return [
    {
      method: 'get', path: `/api/v1/issues/{key}/${list}`, operationId, tag: 'Issues', service: 'issues',
      summary, rights: 'read on the issue\'s queue', query: 'ListPage',
      errors: ['not_found'],
      success: { status: 200, description: PAGE_ANSWER, schema },
    },
  ];
}

/** What a setup link is, in the operations that make one. */
const SETUP_LINK =
  'The answer\'s `setup_url` is a secret for that person only: whoever opens it can set the user\'s password and sign in as them, once, within 72 hours; issuing another link voids it. Setting the password ends every session the user had.';
/** How the account POSTs, which take no `Idempotency-Key` (the access service replays none), begin to say what a repeat does. */
const NOT_REPLAYED = 'No `Idempotency-Key` is taken:';

const WRITE_ONCE = `Safe to retry: send \`${IDEMPOTENCY_KEY_HEADER}\` and a repeat of the same request within ${IDEMPOTENCY.replayHours} hours gets the first answer again (\`${IDEMPOTENT_REPLAYED_HEADER}: true\`) instead of writing twice.`;
const EMPTY_LISTS = 'An empty id list (`"queue_ids": []`, `status_ids`, `assignee_ids`) selects nothing; an absent one does not filter. Labels match exactly (case-sensitively).';

/** Who manages webhooks, in every webhook operation. */
const WEBHOOK_RIGHTS = 'workspace `admin` (a member is 403)';
/** How a webhook delivery goes, in the operations that queue one. */
const DELIVERY =
  'Delivery is a signed JSON POST (Standard Webhooks 1.0: `webhook-id` is the event id, the same on every attempt; `webhook-timestamp`; `webhook-signature` `v1,` base64 HMAC-SHA256 of `id.timestamp.body` with the secret). ' +
  'Only a 2xx answer within 10 s succeeds; redirects are not followed; a 410 disables the webhook.';

/**
 * /api/v1/webhooks: workspace admins manage where events are pushed, and see and retry each
 * delivery. In this order the contract test's requests all succeed: the ping makes delivery
 * 1 before the log and the retry name it, and the webhook is deleted last.
 */
function webhookOperations(): ApiOperation[] {
  const common = { tag: 'Webhooks', service: 'notifications', rights: WEBHOOK_RIGHTS } as const;
  return [
    {
      ...common, method: 'post', path: '/api/v1/webhooks', operationId: 'createWebhook',
      summary: `Have events POSTed to a URL as they happen; a workspace holds at most ${WEBHOOK_LIMITS.perWorkspace} webhooks (422 beyond)`,
      notes:
        'Events that happen from now on and match `events` (and `queue_ids`) are delivered. Failed deliveries are retried with backoff over about three days; when the last retry fails the webhook is disabled, with a `disabled_reason`. ' +
        `${DELIVERY} The URL is checked now and at every connection: one that resolves to a loopback, private, link-local, multicast or metadata address is 422 \`validation_failed\` naming \`url\`. ` +
        `The answer's \`secret\` is shown this once. ${NOT_REPLAYED} a repeat makes a second webhook; DELETE the one not kept.`,
      body: 'WebhookCreate', errors: ['forbidden'],
      success: { status: 201, description: 'The new webhook, with its signing secret in `secret`, shown this once.', schema: 'WebhookCreated' },
    },
    {
      ...common, method: 'get', path: '/api/v1/webhooks', operationId: 'listWebhooks',
      summary: 'The workspace\'s webhooks, oldest first',
      errors: ['forbidden'],
      success: { status: 200, description: 'The webhooks, without their secrets.', schema: 'Webhook', list: true, maxItems: WEBHOOK_LIMITS.perWorkspace },
    },
    {
      ...common, method: 'post', path: '/api/v1/webhooks/{webhook_id}/ping', operationId: 'pingWebhook',
      summary: `Send a \`${PING_EVENT_TYPE}\` event now, to try the endpoint`,
      notes: `The ping is one attempt, made even while the webhook is inactive; follow it in the delivery log. Its \`data\` holds \`webhook_id\`. ${DELIVERY} ${NOT_REPLAYED} a repeat pings again.`,
      errors: ['forbidden', 'not_found'],
      success: { status: 201, description: 'The ping\'s delivery, pending.', schema: 'Delivery' },
    },
    {
      ...common, method: 'get', path: '/api/v1/webhooks/{webhook_id}/deliveries', operationId: 'listWebhookDeliveries',
      summary: 'A webhook\'s delivery log, newest first, a page at a time', query: 'DeliveriesQuery',
      notes: 'Each delivery shows its state and its newest attempts: when, the status answered, how long it took and what went wrong. The log keeps what the event log keeps (7 days); pending deliveries stay until they end.',
      errors: ['forbidden', 'not_found'],
      success: { status: 200, description: 'At most `limit` deliveries before `before_id`, newest first, and where the next page starts.', schema: 'DeliveryPage' },
    },
    {
      ...common, method: 'post', path: '/api/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/retry', operationId: 'retryWebhookDelivery',
      summary: 'Send a delivery again now, with the same `webhook-id`',
      notes: `A finished delivery (succeeded or failed) gets one attempt more, made even while the webhook is inactive; if it fails it is recorded and not retried. A pending one is sent now and keeps its schedule. ${NOT_REPLAYED} a repeat sends once more.`,
      errors: ['forbidden', 'not_found'],
      success: { status: 200, description: 'The delivery, pending its attempt.', schema: 'Delivery' },
    },
    {
      ...common, method: 'get', path: '/api/v1/webhooks/{webhook_id}', operationId: 'getWebhook',
      summary: 'One webhook',
      errors: ['forbidden', 'not_found'],
      success: { status: 200, description: 'The webhook, without its secret.', schema: 'Webhook' },
    },
    {
      ...common, method: 'patch', path: '/api/v1/webhooks/{webhook_id}', operationId: 'updateWebhook',
      summary: 'Change a webhook\'s URL, events, queues or description, or switch it off and on',
      notes: 'A new `url` is checked as at creation. `active: true` clears `disabled_reason`; the deliveries still pending go on, and events that happened while it was inactive are not sent (read them from GET /api/v1/events).',
      body: 'WebhookUpdate', errors: ['forbidden', 'not_found'],
      success: { status: 200, description: 'The webhook after the change.', schema: 'Webhook' },
    },
    {
      ...common, method: 'delete', path: '/api/v1/webhooks/{webhook_id}', operationId: 'deleteWebhook',
      summary: 'Delete a webhook: nothing more is sent, and its delivery log goes with it',
      errors: ['forbidden', 'not_found'],
      success: { status: 200, description: 'The deleted webhook\'s id.', schema: 'WebhookDeleted' },
    },
  ];
}

/**
 * Every operation of /api/v1: the core operations (docs/decisions.md), those beyond them
 * (EXTENSION_OPERATIONS: the list operations that page through what an issue read and a
 * queue's permissions read embed only the newest of, a dashboard's statistics in one
 * request), and the document itself.
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
    method: 'post', path: '/api/v1/users', operationId: 'inviteUser', tag: 'Users', service: 'access',
    summary: 'Invite a colleague by email: a new user of the workspace, and the setup link through which they set a password', rights: 'workspace admin only (a member gets 403 before the body is looked at)',
    notes: `Emails are unique in the installation, whatever their case (409 \`email_taken\` otherwise). ${SETUP_LINK} ${NOT_REPLAYED} a repeat of an invitation that went through is 409 \`email_taken\`; issue a new link for the user then (POST /api/v1/users/{user_id}/setup-link).`,
    body: 'UserInvite', errors: ['forbidden', 'email_taken'],
    success: { status: 201, description: 'The new user, active, with their setup link.', schema: 'InvitedUser' },
  },
  {
    method: 'post', path: '/api/v1/users/{user_id}/setup-link', operationId: 'issueSetupLink', tag: 'Users', service: 'access',
    summary: 'A new setup link for a user (a lost invitation, a forgotten password), optionally giving or changing their email first', rights: 'workspace admin only (a member gets 403 before anything is looked at)',
    notes:
      `The body is optional. With \`email\` the user's sign-in name is set or changed at once (409 \`email_taken\` if another user has it); a user without an email must be given one (422 at \`email\`). ${SETUP_LINK} ` +
      `${NOT_REPLAYED} repeating the request is still safe, as only the newest link counts.`,
    body: 'SetupLinkRequest', bodyOptional: true, errors: ['forbidden', 'not_found', 'email_taken'],
    success: { status: 200, description: 'The new setup link; the user\'s earlier links are void.', schema: 'SetupLink' },
  },
  {
    method: 'get', path: '/api/v1/tokens', operationId: 'listTokens', tag: 'Tokens', service: 'access',
    summary: 'The caller\'s own personal tokens, newest first, without their secrets', rights: 'a valid token (each user sees only their own tokens)',
    notes: 'Revoked tokens and the tokens of signed-in pages are not listed; expired ones are, with their `expires_at`. `last_used_at` is at most 60 seconds behind.',
    success: { status: 200, description: 'The caller\'s personal tokens, newest first (the newest 1,000).', schema: 'PersonalToken', list: true, maxItems: 1000 },
  },
  {
    method: 'post', path: '/api/v1/tokens', operationId: 'createToken', tag: 'Tokens', service: 'access',
    summary: 'Make a personal token (for scripts, integrations and agents); its secret is answered this once', rights: 'a signed-in page\'s token (POST /auth/token): a personal token is refused with 403 `session_required`, so a leaked one cannot make more',
    notes:
      'The token acts as its owner, with the owner\'s current rights, until it expires (`expires_in_days`: 1 to 366, or `null` for never) or is revoked. Only its hash is kept: the secret cannot be shown again. ' +
      `${NOT_REPLAYED} a repeat makes a second token; GET /api/v1/tokens lists both by name and prefix, and the one not kept is revoked with DELETE.`,
    body: 'TokenCreate', errors: ['session_required'],
    success: { status: 201, description: 'The new token, with its secret in `token`, shown this once.', schema: 'PersonalTokenCreated' },
  },
  {
    method: 'delete', path: '/api/v1/tokens/{token_id}', operationId: 'revokeToken', tag: 'Tokens', service: 'access',
    summary: 'Revoke one of the caller\'s personal tokens, refused from the very next request', rights: 'the token\'s owner (another user\'s token is 404, as one that does not exist)',
    notes: 'An id that is not one of the caller\'s personal tokens in force (another user\'s, a revoked one, a signed-in page\'s token) is 404.',
    errors: ['not_found'],
    success: { status: 200, description: 'The token, revoked.', schema: 'TokenRevoked' },
  },
  {
    method: 'get', path: '/api/v1/queues', operationId: 'listQueues', tag: 'Queues', service: 'issues',
    summary: 'Accessible queues with the caller\'s effective rights on them', rights: 'any member; only accessible queues are listed',
    success: { status: 200, description: 'The queues the caller can read.', schema: 'Queue', list: true },
  },
  {
    method: 'post', path: '/api/v1/queues', operationId: 'createQueue', tag: 'Queues', service: 'issues',
    summary: 'Create a queue with the standard statuses (Open, In progress, In review, Done, Cancelled)', rights: 'workspace admin',
    notes: WRITE_ONCE,
    body: 'QueueCreate', idempotency: 'replayed', errors: ['forbidden', 'queue_key_taken', 'idempotency_key_reused'],
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
    summary: `Members with their explicit and inherited roles, and the newest permission changes (${ISSUE_READ_LIMITS.embedded} at most, with their total)`, rights: '`admin` of the queue or of the workspace',
    errors: ['forbidden', 'not_found'],
    success: { status: 200, description: 'The queue\'s permissions.', schema: 'QueuePermissions' },
  },
  {
    method: 'get', path: '/api/v1/queues/{queue_id}/permissions/history', operationId: 'listQueuePermissionHistory', tag: 'Permissions', service: 'access',
    summary: 'Permission changes of a queue, oldest first, a page at a time', rights: '`admin` of the queue or of the workspace', query: 'ListPage',
    errors: ['forbidden', 'not_found'],
    success: { status: 200, description: PAGE_ANSWER, schema: 'PermissionChangePage' },
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
    notes: `Labels are kept once each (the first of duplicates, in order). ${WRITE_ONCE}`,
    body: 'IssueCreate', idempotency: 'replayed', errors: ['forbidden', 'idempotency_key_reused'],
    success: { status: 201, description: 'The new issue, version 1.', schema: 'Issue' },
  },
  {
    method: 'post', path: '/api/v1/issues/search', operationId: 'searchIssues', tag: 'Issues', service: 'issues',
    summary: `Search by text and filters, newest change first, at most ${SEARCH_LIMIT} results`, rights: 'read on the selected queues (naming a queue that is not readable is 403)',
    notes:
      `The search stops at ${SEARCH_LIMIT} issues (the most recently updated) and says so: \`${SEARCH_TOTAL_HEADER}\` tells how many matched (counted up to ${SEARCH_LIMIT}) and \`${SEARCH_TRUNCATED_HEADER}\` whether the cut dropped any; then narrow the filters. ` +
      `\`${LEGACY_SEARCH_TRUNCATED_HEADER}\` is the deprecated name of \`${SEARCH_TRUNCATED_HEADER}\`. ${EMPTY_LISTS} ` +
      `Nothing is written: repeating a search is safe, and an \`${IDEMPOTENCY_KEY_HEADER}\` is checked but has no effect.`,
    body: 'Filters', idempotency: 'accepted', errors: ['forbidden'],
    success: {
      status: 200,
      description: `The matching readable issues, each without comments, worklogs or history and with at most the first ${ISSUE_READ_LIMITS.searchDescription} characters of its description.`,
      schema: 'IssueSummary',
      list: true,
      maxItems: SEARCH_LIMIT,
      headers: [SEARCH_TOTAL_HEADER, SEARCH_TRUNCATED_HEADER, LEGACY_SEARCH_TRUNCATED_HEADER],
    },
  },
  {
    method: 'get', path: '/api/v1/issues/{key}', operationId: 'getIssue', tag: 'Issues', service: 'issues',
    summary: `An issue with its newest comments, worklogs, history, accessible links and subtasks (${ISSUE_READ_LIMITS.embedded} of each at most, with their totals)`, rights: 'read on the issue\'s queue',
    notes:
      'The answer carries an `ETag`. Send it back in `If-None-Match` to read the issue again only if it changed: while the answer would be the same, it is 304 without a body. ' +
      'Tags are compared whole (weakly: a `W/` prefix is ignored); `*` matches any existing issue.',
    conditional: 'read',
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
    notes:
      'Two guards against lost updates, each optional: `version` in the body (a stale one is 409 `version_conflict`) and `If-Match` with an `ETag` this API gave for the issue (another version is 412 `precondition_failed`). ' +
      '`If-Match` compares the version part of the tags: any tag given for the issue at its current version matches, `*` matches, weak tags never match. Both conflicts answer the current version. ' +
      'Labels are kept once each (the first of duplicates, in order).',
    conditional: 'write',
    body: 'IssueUpdate', errors: ['forbidden', 'not_found', 'version_conflict', 'precondition_failed'],
    success: { status: 200, description: 'The issue after the change; `version` grows by one when something changed.', schema: 'Issue' },
  },
  {
    method: 'post', path: '/api/v1/issues/{key}/comments', operationId: 'addComment', tag: 'Issues', service: 'issues',
    summary: `Add a comment authored by the token owner; an issue holds at most ${ISSUE_LIMITS.commentsPerIssue.toLocaleString('en-US')} (422 beyond)`, rights: '`read-write` or `admin` on the queue',
    notes: WRITE_ONCE,
    body: 'CommentCreate', idempotency: 'replayed', errors: ['forbidden', 'not_found', 'idempotency_key_reused'],
    success: { status: 201, description: 'The new comment.', schema: 'Comment' },
  },
  {
    method: 'post', path: '/api/v1/issues/{key}/worklogs', operationId: 'addWorklog', tag: 'Issues', service: 'issues',
    summary: `Record 1 to 1440 whole minutes of work; an issue holds at most ${ISSUE_LIMITS.worklogsPerIssue.toLocaleString('en-US')} worklogs (422 beyond)`, rights: '`read-write` or `admin` on the queue',
    notes: WRITE_ONCE,
    body: 'WorklogCreate', idempotency: 'replayed', errors: ['forbidden', 'not_found', 'idempotency_key_reused'],
    success: { status: 201, description: 'The new worklog.', schema: 'Worklog' },
  },
  {
    method: 'post', path: '/api/v1/statistics', operationId: 'getStatistics', tag: 'Statistics', service: 'statistics',
    summary: `Statistics of accessible issues (at most ${SEARCH_LIMIT}; \`truncated\` reports cutting)`, rights: 'read on the respective queues (naming a queue that is not readable is 403)',
    notes:
      `The same filters select the same issues as a search. When more than ${SEARCH_LIMIT} match, \`truncated\` is true: \`total\` still counts every match, while \`progress\`, \`time\`, \`queues\` and \`assignees\` count the ${SEARCH_LIMIT} most recently updated. ` +
      `${EMPTY_LISTS} (everything counts zero for an empty one). Nothing is written: an \`${IDEMPOTENCY_KEY_HEADER}\` is checked but has no effect.`,
    body: 'Filters', idempotency: 'accepted', errors: ['forbidden'],
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
    notes: `A widget whose filters hold an empty id list shows nothing. ${WRITE_ONCE}`,
    body: 'DashboardInput', idempotency: 'replayed', errors: ['forbidden', 'idempotency_key_reused'],
    success: { status: 201, description: 'The new dashboard, owned by the caller.', schema: 'Dashboard' },
  },
  {
    method: 'put', path: '/api/v1/dashboards/{dashboard_id}', operationId: 'replaceDashboard', tag: 'Dashboards', service: 'statistics',
    summary: 'Replace the name and the widgets of a dashboard', rights: 'owner of the dashboard (403 for another member who sees it); read on the queues in the filters',
    notes: 'A widget whose filters hold an empty id list shows nothing.',
    body: 'DashboardInput', errors: ['forbidden', 'not_found'],
    success: { status: 200, description: 'The dashboard after the change.', schema: 'Dashboard' },
  },
  {
    method: 'get', path: '/api/v1/dashboards/{dashboard_id}/statistics', operationId: 'getDashboardStatistics', tag: 'Dashboards', service: 'statistics',
    summary: `The statistics of every widget of a dashboard, in one request (at most ${DASHBOARD_LIMITS.widgets})`, rights: 'member who sees the dashboard (read on every queue its filters name)',
    notes:
      'Each entry is what POST /api/v1/statistics answers to the caller for that widget\'s filters (`mine` is the caller), whatever the widget\'s `type`, in the widgets\' order and all from the same state of the statistics replica. ' +
      'One request draws the whole dashboard: the caller is authenticated and their rights read once, and the widgets are computed side by side.',
    errors: ['not_found'],
    success: { status: 200, description: 'The statistics of each widget.', schema: 'DashboardStatistics' },
  },
  {
    method: 'get', path: '/api/v1/events', operationId: 'listEvents', tag: 'Events', service: 'notifications',
    summary: 'The workspace\'s events after a cursor, oldest first: what changed since you last looked', rights: 'any valid token; each event only to whoever may read its object now (issue, comment, worklog and queue events to the queue\'s readers, permission changes to the queue\'s admins, user events to every member)',
    query: 'EventsQuery',
    notes:
      `Keep \`next_cursor\` and send it back as \`after\` to get what happened since: it is answered on every page, the last one too, and the feed is caught up when a page answers the \`after\` it was sent. ` +
      `A page may hold fewer events than \`limit\`, even none, and still move the cursor on: it looks at a bounded number of events, those you may not read included. Rights are your current ones: a revoke hides a queue\'s events at once, earlier ones too. ` +
      `Events are kept ${EVENT_LIMITS.retentionDays} days; a cursor before the oldest kept is 410 \`cursor_expired\` (start again without \`after\`, and re-read through the API what you keep). ` +
      'An event\'s `id` is stable: drop one seen before. Its `timestamp` is when the change happened; the feed is in the order the events were recorded, and an issue\'s `version` orders its updates.',
    errors: ['cursor_expired'],
    success: { status: 200, description: 'The events after `after` (from the oldest kept without it), oldest first, and the cursor to go on from.', schema: 'EventPage' },
  },
  ...webhookOperations(),
  {
    method: 'get', path: '/api/v1/events/stream', operationId: 'streamEvents', tag: 'Events', service: 'notifications',
    summary: 'The workspace\'s events as they happen: the feed, pushed as Server-Sent Events', rights: 'any valid token; each event only to whoever may read its object now, as the feed (GET /api/v1/events)',
    query: 'EventStreamQuery',
    notes:
      'A `text/event-stream` (what a browser\'s `EventSource` reads): first `retry: 2000`, then for each event `id: <cursor>`, `event: <type>`, `data: <the event as the feed answers it, JSON on one line>` and a blank line; a `: keep-alive` comment at least every 15 seconds while nothing happens. ' +
      'An event\'s `id` is the feed\'s cursor after it: send it back as `Last-Event-ID` (EventSource does on reconnecting) or as `after` to resume right after it, or read on with GET /api/v1/events?after=. Without either the stream starts from now (the newest event); the feed has the past. ' +
      `Events show within about a second of being recorded, filtered as the feed does (\`types\`) and by your rights at that moment: a revoke hides the queue\'s later events. The server ends every stream after a few minutes (5 by default) and when it restarts: reconnect with \`Last-Event-ID\`, after the \`retry\` delay. ` +
      `Refusals come before the stream begins, as problem+json: a cursor before the events kept (${EVENT_LIMITS.retentionDays} days) is 410 \`cursor_expired\`; too many streams open for you at once is 429 \`rate_limited\` with \`Retry-After\` (close another tab, or wait).`,
    errors: ['cursor_expired'],
    success: {
      status: 200,
      eventStream: true,
      description:
        'The stream of the events after `Last-Event-ID` (or `after`; from now without either), oldest first, as long as the connection lasts (minutes, then the server ends it). Headers: `Content-Type: text/event-stream; charset=utf-8`, `Cache-Control: no-store`, `X-Accel-Buffering: no`.',
    },
  },
  {
    method: 'get', path: OPENAPI_PATH, operationId: 'getOpenApiDocument', tag: 'Schema', service: 'gateway', public: true,
    summary: 'This OpenAPI 3.1 document', rights: 'none: served without a token',
    success: { status: 200, description: 'The document.' },
  },
];

/** Operations beyond the core operations (docs/decisions.md): the issue list pages, a dashboard's statistics in one request, the permission history pages, the event feed, its live stream and the webhooks. */
export const EXTENSION_OPERATIONS = [
  'listComments', 'listWorklogs', 'listHistory', 'listLinks', 'listSubtasks', 'getDashboardStatistics', 'listQueuePermissionHistory', 'listEvents', 'streamEvents',
  'createWebhook', 'listWebhooks', 'getWebhook', 'updateWebhook', 'listWebhookDeliveries', 'pingWebhook', 'retryWebhookDelivery', 'deleteWebhook',
] as const;

/** Refusals any authenticated operation may answer (gateway and service alike). */
const COMMON_ERRORS: ProblemCode[] = [
  'bad_request', 'unauthorized', 'request_timeout', 'payload_too_large', 'validation_failed', 'rate_limited', 'headers_too_large', 'service_unavailable',
];
/** Refusals of the public document: only those answered before any routing. */
const PUBLIC_ERRORS: ProblemCode[] = ['bad_request', 'request_timeout', 'headers_too_large'];

export function errorCodesOf(operation: ApiOperation): ProblemCode[] {
  if (operation.public) return [...PUBLIC_ERRORS];
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
    responses[status] = {
      description: codes.map((code) => `\`${code}\`: ${PROBLEM_RESPONSES[code].description}`).join(' '),
      headers: problemHeaders(codes),
      content: {
        'application/problem+json': {
          schema: { description: 'One of these problem bodies, told apart by `code`.', oneOf: codes.map((code) => ref(`${problemName(code)}Problem`)) },
          examples: Object.fromEntries(codes.map((code) => [code, { summary: `\`${code}\``, value: PROBLEM_EXAMPLES[code] }])),
        },
      },
    };
  }
  return responses;
}

export const pathParams = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as PathParam);

function successSchema({ success }: ApiOperation): JsonSchema {
  if (!success.schema) return { type: 'object', additionalProperties: true, description: 'An OpenAPI 3.1 document: this one.' };
  if (!success.list) return ref(success.schema);
  return {
    type: 'array',
    description: `A list of ${success.schema}${success.maxItems ? `, at most ${success.maxItems}` : ''}.`,
    items: ref(success.schema),
    ...(success.maxItems ? { maxItems: success.maxItems } : {}),
  };
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

const exampleOf = (examples: Record<string, unknown>, operation: ApiOperation, what: string): unknown => {
  if (!(operation.operationId in examples)) throw new Error(`${operation.operationId}: no ${what} example (libs/contracts/src/examples.ts)`);
  return examples[operation.operationId];
};

/** The header parameters of an operation: `Idempotency-Key` on POST, the conditions on an issue's read and update. */
function headerParameters(operation: ApiOperation) {
  const parameters: JsonSchema[] = [];
  if (operation.idempotency) {
    const { $schema: _schema, description: _description, examples: _examples, ...schema } = z.toJSONSchema(IdempotencyKey);
    parameters.push({
      name: IDEMPOTENCY_KEY_HEADER,
      in: 'header',
      required: false,
      description:
        operation.idempotency === 'replayed'
          ? `Makes retrying this write safe: a key the client chooses for this one write (a UUID, say), 1 to ${IDEMPOTENCY.maxKeyLength} visible ASCII characters. ` +
            `The first successful answer is stored with the write; for ${IDEMPOTENCY.replayHours} hours a repeat with the same key and the same request (method, path and JSON body) gets that answer again, marked \`${IDEMPOTENT_REPLAYED_HEADER}: true\`, and nothing is written twice. ` +
            `The same key with another request is 422 \`idempotency_key_reused\`. Refusals are not stored: a retry after one is judged afresh. Keys are per workspace and user: two callers never share one.`
          : `Accepted as on the writes and checked (1 to ${IDEMPOTENCY.maxKeyLength} visible ASCII characters, else 422), but without effect: this operation writes nothing, so repeating it is safe.`,
      example: exampleOf(IDEMPOTENCY_KEY_EXAMPLES, operation, IDEMPOTENCY_KEY_HEADER),
      schema,
    });
  }
  if (operation.success.eventStream) {
    parameters.push({
      name: 'Last-Event-ID',
      in: 'header',
      required: false,
      description:
        'Resume after this event: the `id` of the last event received, which `EventSource` sends by itself on reconnecting. It wins over `after`. A cursor before the events kept is 410 `cursor_expired`; a text that is no cursor of this API is 422.',
      example: 'c1_MTI0',
      schema: { type: 'string', pattern: '^c1_[A-Za-z0-9_-]{1,40}$' },
    });
  }
  if (operation.conditional === 'read') {
    parameters.push({
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description:
        'Read the issue only if it changed: the `ETag` of the copy you hold (or a comma-separated list of tags, or `*`). When one of them is the tag this answer would carry (compared weakly: a `W/` prefix is ignored), or it is `*`, the answer is 304 without a body. The example never matches.',
      example: IF_NONE_MATCH_EXAMPLE,
      schema: { type: 'string', minLength: 1 },
    });
  }
  if (operation.conditional === 'write') {
    parameters.push({
      name: 'If-Match',
      in: 'header',
      required: false,
      description:
        'Change the issue only if it is still at the version you read: an `ETag` this API gave for the issue (or a comma-separated list of them), or `*`. The version parts are compared: a tag given for the issue at its current version matches (whatever answer it came from), `*` matches any existing issue, a weak tag (`W/…`) never matches. Otherwise nothing is changed: 412 `precondition_failed` with the current version.',
      example: IF_MATCH_EXAMPLE,
      schema: { type: 'string', minLength: 1 },
    });
  }
  return parameters;
}

/** The zod schema of an operation's success answer (a list is an array of it); none for a stream or the document itself. */
export function responseSchemaOf(operation: ApiOperation): z.ZodType | undefined {
  if (!operation.success.schema) return undefined;
  const schema = RESPONSE_SCHEMAS[operation.success.schema][0];
  return operation.success.list ? z.array(schema) : schema;
}

function successResponse(operation: ApiOperation) {
  const names: HeaderName[] = ['X-Request-Id'];
  if (!operation.public) names.push('RateLimit-Limit', 'RateLimit-Remaining');
  if (operation.conditional) names.push('ETag');
  if (operation.idempotency === 'replayed') names.push(IDEMPOTENT_REPLAYED_HEADER);
  names.push(...(operation.success.headers ?? []));
  return {
    description: operation.success.description,
    headers: Object.fromEntries(names.map((h) => [h, header(h)])),
    content: operation.success.eventStream
      ? { 'text/event-stream': { schema: EVENT_STREAM_SCHEMA, example: EVENT_STREAM_EXAMPLE } }
      : { 'application/json': { schema: successSchema(operation), example: exampleOf(RESPONSE_EXAMPLES, operation, 'answer') } },
  };
}

/** A stream's body: text, framed as Server-Sent Events; each event's `data` is a PublicEvent. */
const EVENT_STREAM_SCHEMA = {
  type: 'string',
  description:
    'Server-Sent Events (the HTML standard\'s `text/event-stream`), UTF-8: `retry: 2000` first; per event the lines `id: <cursor after it>`, `event: <its type>`, `data: <a PublicEvent as JSON, on one line>`, then a blank line; `: keep-alive` comments in between. Parse it as EventSource does: ignore fields and comments you do not know.',
};

const notModified = () => ({
  description: 'Not modified: `If-None-Match` names the tag this answer would carry (or is `*`). No body: the copy the client holds is current.',
  headers: Object.fromEntries((['ETag', 'X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining'] as const).map((h) => [h, header(h)])),
});

function operationObject(operation: ApiOperation) {
  const parameters = [
    ...pathParams(operation.path).map((p) => ({ $ref: `#/components/parameters/${PARAMETER_NAMES[p]}` })),
    ...queryParameters(operation),
    ...headerParameters(operation),
  ];
  return {
    operationId: operation.operationId,
    tags: [operation.tag],
    summary: operation.summary,
    description: `Rights needed: ${operation.rights}.${operation.notes ? `\n\n${operation.notes}` : ''}`,
    ...(operation.public ? { security: [] } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(operation.body
      ? {
          requestBody: {
            required: !operation.bodyOptional,
            description: REQUEST_SCHEMAS[operation.body][1],
            content: { 'application/json': { schema: ref(operation.body), example: exampleOf(REQUEST_EXAMPLES, operation, 'request body') } },
          },
        }
      : {}),
    responses: {
      [operation.success.status]: successResponse(operation),
      ...(operation.conditional === 'read' ? { 304: notModified() } : {}),
      ...errorResponses(operation),
    },
  };
}

const TAGS: Record<string, string> = {
  Users: 'The caller and the users of their workspace: names, emails, workspace roles (`admin`, `member`) and whether they are active; inviting a colleague and the setup links through which people set their password.',
  Tokens: 'The caller\'s personal tokens, the bearer tokens of their scripts, integrations and agents: made by a person signed in, listed without their secrets, revoked at once.',
  Queues: 'Queues group issues under a key (queue WEB holds WEB-1, WEB-2, …) and each has its own workflow of statuses.',
  Permissions: 'Explicit roles of users on a queue (`read-only`, `read-write`, `admin`) and their history; workspace admins inherit `admin` on every queue.',
  Issues: 'Issues with their comments, worklogs, history, links and subtasks, and the search over them.',
  Statistics: 'Counts and times over the issues a Filters body selects.',
  Dashboards: 'Shared dashboards: named lists of widgets, each a Filters body and what to show of the issues it selects.',
  Events: 'What changed in the workspace: the public events of issues, comments, worklogs, queues, permissions and users, in a feed read with a cursor, or pushed as they happen on a live stream.',
  Webhooks: 'Events pushed to an integration\'s URL as they happen, signed the Standard Webhooks 1.0 way, retried for about three days, each attempt in a delivery log.',
  Schema: 'This OpenAPI document.',
};

/** Additions to v1, newest first (the same list, dated, is docs/api-changelog.md). */
export const CHANGES_WITHIN_V1 = [
  '2026-11-29: GET /api/v1/events/stream, the event feed live: Server-Sent Events from now, or after `Last-Event-ID` (or `after`), each event framed with the feed\'s cursor after it as its id; the server ends a stream after some minutes and the client reconnects with `Last-Event-ID`. Too many streams open at once is 429 `rate_limited`.',
  '2026-11-29: webhooks. POST, GET, PATCH and DELETE /api/v1/webhooks let workspace admins have events POSTed to a URL, signed the Standard Webhooks 1.0 way (`webhook-id`, `webhook-timestamp`, `webhook-signature`) with a secret shown once and retried for about three days; GET /api/v1/webhooks/{webhook_id}/deliveries is the delivery log, POST …/deliveries/{delivery_id}/retry sends one again and POST …/ping sends a `webhook.ping` event.',
  '2026-11-29: GET /api/v1/events, the event feed: the workspace\'s public events (`issue.created`, `issue.updated`, `comment.added`, `worklog.added`, `queue.created`, `queue.updated`, `permission.changed`, `user.created`, `user.updated`) after a cursor, each shown to whoever may read its object now; new problem code `cursor_expired` (410).',
  '2026-11-29: people\'s accounts. Users carry `email`, their sign-in name; POST /api/v1/users invites a colleague and answers their setup link, POST /api/v1/users/{user_id}/setup-link issues a new one; GET and POST /api/v1/tokens and DELETE /api/v1/tokens/{token_id} list, make (with a signed-in page\'s token) and revoke the caller\'s personal tokens; new problem codes `email_taken` (409) and `session_required` (403).',
  '2026-11-29: GET /api/v1/queues/{queue_id}/permissions embeds the newest 50 permission changes, no longer all of them, with `history_total`; GET /api/v1/queues/{queue_id}/permissions/history pages through all of them.',
  '2026-11-25: GET /api/v1/dashboards/{dashboard_id}/statistics answers every widget of a dashboard in one request.',
  '2026-11-24: every schema, property, parameter and answer described and exemplified; conditional requests (`ETag`, `If-None-Match`, `If-Match`), `Idempotency-Key` and the search headers declared.',
  '2026-11-24: GET /api/v1/issues/{key}/comments, /worklogs, /history, /links and /subtasks page through what an issue read embeds the newest 50 of.',
];

const DESCRIPTION = `The REST API of Tracker, a team issue tracker organised in workspaces.

- Every operation but this document needs \`Authorization: Bearer <token>\`: a personal token (\`trk_\` then 32 or more base62 characters; see the Tokens operations), or a signed-in page's token of the same form (good for 15 minutes, ended with its session). A token reads and changes only its owner's workspace, with the owner's current rights.
- People sign in with a browser through \`/auth/*\` (sign-in, the setup links' form, the session and its page tokens, password change, sign-out): those routes take the session cookie, exist for browsers and are described in the README, not in this document. \`/api/v1\` takes a bearer token only, never the cookie.
- Requests and answers are JSON; a request body is sent with \`Content-Type: application/json\`, at most 1 MiB. Unknown fields are rejected. Answers are \`application/json\`, problems \`application/problem+json\`, both without a charset parameter (JSON is UTF-8).
- Request bodies are UTF-8. A string or field name holding a lone UTF-16 surrogate (\`\\uD800\`–\`\\uDFFF\` without its pair) is refused with 422 \`validation_failed\` naming its path. A body that is not valid UTF-8, nests more than 32 levels, or has more than 2,000 object members or 5,000 array elements in all is refused with 422 at path \`(body)\` before it is parsed.
- Errors are RFC 9457 problem details (\`application/problem+json\`) with a stable \`code\`. An unknown path or an unserved method is 404.
- Search and statistics work on at most ${SEARCH_LIMIT} issues (the most recently updated): a search says how many matched in \`${SEARCH_TOTAL_HEADER}\` and whether it was cut in \`${SEARCH_TRUNCATED_HEADER}\`; statistics count every match in \`total\` and the ${SEARCH_LIMIT} used everywhere else. A search row carries the first ${ISSUE_READ_LIMITS.searchDescription} characters of the description (\`description_truncated\` says when there is more).
- Filters (search, statistics, dashboard widgets): every filter given narrows the set. An empty id list (\`"queue_ids": []\`, \`status_ids\`, \`assignee_ids\`) selects nothing, as a computed selection that came out empty should; an absent one does not filter, nor do a null \`search\`, \`priority\`, \`category\` or \`label\`. Labels are kept once each and matched exactly (case-sensitively).
- An issue read embeds the newest ${ISSUE_READ_LIMITS.embedded} of its comments, worklogs, history entries, links and subtasks, and how many there are (\`comments_total\`, …); GET /api/v1/issues/{key}/comments (worklogs, history, links, subtasks) pages through all of them with \`after_id\` and \`limit\` (1 to ${ISSUE_READ_LIMITS.pageMax}). History keeps at most ${ISSUE_READ_LIMITS.historyText.toLocaleString('en-US')} characters of a changed text. An issue holds at most ${ISSUE_LIMITS.commentsPerIssue.toLocaleString('en-US')} comments and ${ISSUE_LIMITS.worklogsPerIssue.toLocaleString('en-US')} worklogs.
- A queue's permissions read (GET /api/v1/queues/{queue_id}/permissions) embeds the newest ${ISSUE_READ_LIMITS.embedded} permission changes and how many there are (\`history_total\`); GET /api/v1/queues/{queue_id}/permissions/history pages through all of them with \`after_id\` and \`limit\`, as the issue lists do.
- Each token may make a limited number of requests per minute (429 \`rate_limited\` with \`Retry-After\` beyond it; \`RateLimit-Limit\` and \`RateLimit-Remaining\` tell where it stands). A client address with more than 60 failed authentications in a minute gets 429 on every request for the rest of that minute.
- A request is judged when it has arrived whole: its body must follow its headers within 10 s (408 otherwise), and a token revoked or a role changed before the body's last byte no longer counts for it.
- Every answer carries \`X-Request-Id\` (a valid one sent by the client is kept) and \`Cache-Control: no-store\`.
- Optimistic concurrency: an issue has a \`version\`; send the last one read in an update. On 409 \`version_conflict\`, re-read the issue and reconsider the change, a bounded number of times. Reading and updating an issue also speak HTTP conditional requests: its \`ETag\` in \`If-None-Match\` (304 while unchanged) and \`If-Match\` (412 once changed).
- What changed: GET /api/v1/events answers the workspace's events after a cursor (\`after\`, the \`next_cursor\` of the page before), oldest first, each an object as the API answers it with the old values of what changed, and only those the caller may read now. Events are kept ${EVENT_LIMITS.retentionDays} days: an older cursor is 410 \`cursor_expired\`. GET /api/v1/events/stream pushes the same events as they happen (Server-Sent Events, resumed with \`Last-Event-ID\`).
- Safe retries: the POSTs that create queues, issues, comments, worklogs and dashboards take an \`${IDEMPOTENCY_KEY_HEADER}\`; a repeat of the same request with the same key within ${IDEMPOTENCY.replayHours} hours gets the first answer again (\`${IDEMPOTENT_REPLAYED_HEADER}: true\`) instead of writing twice. The POSTs of accounts (an invitation, a setup link, a personal token) take none: each says what a repeat does.

**Compatibility.** Within 1.x the API only grows: answers may gain fields, and new optional request fields, new operations and new problem codes may appear. Clients must ignore answer fields they do not know (the answer schemas are open for that reason) and treat an unknown problem \`code\` by its HTTP status. Nothing is removed or renamed within 1.x; a deprecated field or header keeps being sent until 2.0. The document's \`info.version\` stays \`1.0.0\` throughout v1: additions are announced below, newest first, never by changing that number.

**Changes within v1.**
${CHANGES_WITHIN_V1.map((change) => `- ${change}`).join('\n')}`;

let built: Record<string, unknown> | undefined;

/** The OpenAPI 3.1 document (built once; callers must not change it). */
export function openApiDocument(): Record<string, any> {
  built ??= buildDocument();
  return built;
}

/** Only the response components some operation uses (an unused one is a lint warning). */
function usedResponses(paths: unknown): Record<string, unknown> {
  const text = JSON.stringify(paths);
  return Object.fromEntries(Object.entries(problemResponses()).filter(([name]) => text.includes(`"#/components/responses/${name}"`)));
}

function buildDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of API_OPERATIONS) {
    paths[operation.path] = { ...paths[operation.path], [operation.method]: operationObject(operation) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tracker API',
      version: API_VERSION,
      description: DESCRIPTION,
      contact: { name: 'Tracker team', url: 'https://tracker.dev' },
      license: { name: 'Apache 2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/', description: 'The gateway this document was read from.' }],
    security: [{ bearerAuth: [] }],
    tags: [...new Set(API_OPERATIONS.map((o) => o.tag))].map((name) => ({ name, description: TAGS[name] })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'A token of a workspace user (`trk_` then 32 or more base62 characters): a personal token, or a signed-in page\'s token (15 minutes).',
        },
      },
      parameters: parameterComponents(),
      headers: HEADERS,
      responses: usedResponses(paths),
      schemas: {
        ...componentSchemas(REQUEST_SCHEMAS, 'input'),
        ...componentSchemas(RESPONSE_SCHEMAS, 'output'),
        ...problemSchemas(),
      },
    },
  };
}

/**
 * A copy of the document whose object schemas admit no property they do not declare. The
 * published answers are open (clients must ignore unknown fields, the compatibility policy);
 * tests that check what this API itself sends, or its examples, validate against this copy
 * instead, so an undeclared field is still caught.
 */
export function closedDocument(): Record<string, any> {
  const copy = structuredClone(openApiDocument());
  const close = (schema: unknown) =>
    walkSchema(schema, (node) => {
      if (node.properties && !('additionalProperties' in node)) node.additionalProperties = false;
    });
  const closeContent = (content: Record<string, { schema?: unknown }> | undefined) => Object.values(content ?? {}).forEach((media) => close(media.schema));
  Object.values(copy.components.schemas).forEach(close);
  Object.values(copy.components.responses as Record<string, { content?: Record<string, { schema?: unknown }> }>).forEach((r) => closeContent(r.content));
  for (const item of Object.values(copy.paths as Record<string, Record<string, any>>)) {
    for (const operation of Object.values(item)) {
      closeContent(operation.requestBody?.content);
      for (const response of Object.values(operation.responses as Record<string, { content?: Record<string, { schema?: unknown }> }>)) closeContent(response.content);
    }
  }
  return copy;
}
