import type { z } from 'zod';
import type { InvitedUser, PersonalToken, PersonalTokenCreated, SetupLink, SetupLinkRequest, TokenCreate, UserInvite } from './accounts';
import type { Dashboard, DashboardInput } from './dashboards';
import type { EventPage } from './events';
import type { Filters } from './filters';
import type {
  Comment,
  CommentCreate,
  CommentPage,
  HistoryEntry,
  HistoryPage,
  Issue,
  IssueCreate,
  IssueDetails,
  IssueLink,
  IssueSummary,
  IssueUpdate,
  LinkPage,
  SubtaskPage,
  Worklog,
  WorklogCreate,
  WorklogPage,
} from './issues';
import type { PermissionChangePage, QueueMember, QueuePermission, QueuePermissionInput, QueuePermissions } from './permissions';
import { PROBLEM_CODES, problemType, type ProblemCode } from './problem';
import { STANDARD_STATUSES, type Queue, type QueueCreate, type QueueSettings, type Status } from './queues';
import type { DashboardStatistics, StatisticsResult } from './statistics';
import type { Me, User, UserChanges } from './users';
import type { Delivery, DeliveryPage, Webhook, WebhookCreate, WebhookCreated, WebhookUpdate } from './webhooks';

/**
 * The examples of the published OpenAPI document, all in one place: request bodies, the
 * answers, the parameters and the problem bodies. A test validates each against the schema
 * it illustrates, so they cannot drift.
 *
 * They describe one small world, the one the contract test (Dredd) builds on a fresh system
 * before it sends the request examples in document order with a token of user 1:
 * workspace 1 "Acme"; user 1 "Ada" (workspace admin, the caller, email ada@example.com) and
 * user 2 "Bob" (member, added by the operator without an email); personal tokens 1 (Ada's)
 * and 2 (Bob's), made by the operator; queue 1 `WEB` "Website" with the standard statuses
 * 1–5; issue WEB-1 (id 1, version 1) with one comment and one worklog; dashboard 1. Ada has
 * signed in through her setup link, and the caller's token is her page's token (token 3):
 * POST /tokens takes no personal token. So every request example must succeed there, in
 * document order: POST /users invites a new email, POST /queues uses a new key,
 * PATCH /issues/WEB-1 sends `version: 1`, DELETE /tokens/1 revokes the operator's token
 * once Ada has made her own, …
 */

const at = (time: string) => `2026-11-02T${time}:00.000Z`;
const CREATED = at('09:00');

const ada: User = { id: 1, workspace_id: 1, name: 'Ada', role: 'admin', active: true, email: 'ada@example.com', created_at: CREATED, updated_at: CREATED };
/** Bob was added by the operator without an email: issueSetupLink's example gives him one. */
const bob: User = { id: 2, workspace_id: 1, name: 'Bob', role: 'member', active: true, email: null, created_at: CREATED, updated_at: CREATED };
const bobRenamed: User = { ...bob, name: 'Bob Stone', updated_at: at('10:01') };
/** The colleague inviteUser's example invites. */
const grace: User = { id: 3, workspace_id: 1, name: 'Grace Hopper', role: 'member', active: true, email: 'grace@example.com', created_at: at('10:01'), updated_at: at('10:01') };

/** The personal token the operator made with the workspace: Ada's first, which she replaces with her own. */
const operatorToken: PersonalToken = {
  id: 1,
  name: 'created by operator',
  prefix: 'trk_Ab12cd',
  created_at: CREATED,
  expires_at: null,
  last_used_at: at('09:30'),
};

const statusesOf = (queueId: number, firstId: number): Status[] =>
  STANDARD_STATUSES.map((status, i) => ({ id: firstId + i, queue_id: queueId, ...status }));
const statusRef = (id: number) => {
  const { name, category } = statusesOf(1, 1)[id - 1]!;
  return { id, name, category };
};

const website: Queue = {
  id: 1,
  workspace_id: 1,
  key: 'WEB',
  name: 'Website',
  description: 'Bugs and requests for the public website',
  statuses: statusesOf(1, 1),
  role: 'admin',
  role_source: 'inherited',
  created_at: CREATED,
  updated_at: CREATED,
};
const operations: Queue = {
  ...website,
  id: 2,
  key: 'OPS',
  name: 'Operations',
  description: 'Servers, deployments and on-call',
  statuses: statusesOf(2, 6),
  created_at: at('10:02'),
  updated_at: at('10:02'),
};

/** WEB-1 as the world has it: open, assigned to Ada, version 1. */
const web1: Issue = {
  id: 1,
  key: 'WEB-1',
  workspace_id: 1,
  queue_id: 1,
  title: 'Login fails in Firefox',
  description: 'Clicking "Sign in" does nothing in Firefox 128.',
  status_id: 1,
  status: statusRef(1),
  position: 1,
  assignee_id: 1,
  parent_id: null,
  priority: 'high',
  type: 'bug',
  labels: ['frontend'],
  due_date: null,
  estimate_minutes: 120,
  spent_minutes: 30,
  version: 1,
  created_by: 1,
  created_at: at('09:10'),
  updated_at: at('09:25'),
};

/** The issue createIssue's example makes: WEB-2, which mentions WEB-1. */
const web2: Issue = {
  ...web1,
  id: 2,
  key: 'WEB-2',
  title: 'Login button misaligned',
  description: 'The login button overlaps the footer on small screens; see WEB-1.',
  labels: ['frontend'],
  due_date: '2026-12-31',
  estimate_minutes: 90,
  spent_minutes: 0,
  created_at: at('10:05'),
  updated_at: at('10:05'),
};

/** WEB-1 after updateIssue's example: moved to "In progress", version 2. */
const web1Moved: Issue = { ...web1, status_id: 2, status: statusRef(2), version: 2, updated_at: at('10:10') };

const comment1: Comment = { id: 1, issue_id: 1, author_id: 1, body: 'Reproduced on staging.', created_at: at('09:20') };
const worklog1: Worklog = { id: 1, issue_id: 1, author_id: 1, minutes: 30, description: 'Investigation', created_at: at('09:25') };
const created: HistoryEntry = { field: 'created', from: null, to: null, from_truncated: false, to_truncated: false, actor_id: 1, at: at('09:10') };
const moved: HistoryEntry = { field: 'status_id', from: 1, to: 2, from_truncated: false, to_truncated: false, actor_id: 1, at: at('10:10') };
const mentionedBy: IssueLink = {
  id: 2,
  key: 'WEB-2',
  queue_id: 1,
  title: web2.title,
  status: statusRef(1),
  assignee_id: 1,
  priority: 'high',
  type: 'mentions',
  direction: 'inward',
  linked_at: at('10:05'),
};

const summary = (issue: Issue): IssueSummary => ({ ...issue, description_truncated: false });

const adaOnWebsite: QueueMember = {
  user_id: 1,
  name: 'Ada',
  active: true,
  workspace_role: 'admin',
  role: 'admin',
  role_source: 'inherited',
  explicit_role: null,
  inherited_role: 'admin',
};
const bobWithoutAccess: QueueMember = {
  user_id: 2,
  name: 'Bob Stone',
  active: true,
  workspace_role: 'member',
  role: null,
  role_source: null,
  explicit_role: null,
  inherited_role: null,
};
const graceWithoutAccess: QueueMember = { ...bobWithoutAccess, user_id: 3, name: 'Grace Hopper' };

/** The filters of searchIssues and getStatistics: queue 1, every status, Ada's issues, "login". */
const FILTERS_EXAMPLE: Filters = {
  search: 'login',
  queue_ids: [1],
  status_ids: [1, 2, 3, 4, 5],
  assignee_ids: [1],
  mine: false,
  priority: null,
  category: null,
  overdue: false,
  label: null,
};

const dashboard1: Dashboard = {
  id: 1,
  workspace_id: 1,
  owner_id: 1,
  name: 'Website',
  widgets: [{ type: 'stats', title: '', filters: { mine: false, overdue: false } }],
  created_at: at('09:30'),
  updated_at: at('09:30'),
};

const releaseWidgets: DashboardInput['widgets'] = [
  { type: 'stats', title: 'Open bugs', filters: { queue_ids: [1], status_ids: [1, 2, 3], assignee_ids: [1], mine: false, overdue: false } },
  { type: 'issues', title: 'Mine', filters: { mine: true, overdue: false } },
];

type In<T extends z.ZodType> = z.input<T>;
type Out<T extends z.ZodType> = z.output<T>;

/** The request body of each operation that takes one (in document order, they all succeed on the example world). */
export const REQUEST_EXAMPLES = {
  updateUser: { name: 'Bob Stone' } satisfies In<typeof UserChanges>,
  inviteUser: { name: 'Grace Hopper', email: 'grace@example.com', role: 'member' } satisfies In<typeof UserInvite>,
  issueSetupLink: { email: 'bob@example.com' } satisfies In<typeof SetupLinkRequest>,
  createToken: { name: 'CI pipeline', expires_in_days: 90 } satisfies In<typeof TokenCreate>,
  createQueue: { key: 'OPS', name: 'Operations', description: 'Servers, deployments and on-call' } satisfies In<typeof QueueCreate>,
  updateQueue: { description: 'Bugs and requests for the public website and its login' } satisfies In<typeof QueueSettings>,
  setQueuePermission: { role: 'read-write' } satisfies In<typeof QueuePermissionInput>,
  createIssue: {
    queue_id: 1,
    title: web2.title,
    description: web2.description,
    assignee_id: 1,
    parent_id: null,
    priority: 'high',
    type: 'bug',
    labels: ['frontend'],
    due_date: '2026-12-31',
    estimate_minutes: 90,
  } satisfies In<typeof IssueCreate>,
  searchIssues: FILTERS_EXAMPLE satisfies In<typeof Filters>,
  updateIssue: { version: 1, status_id: 2 } satisfies In<typeof IssueUpdate>,
  addComment: { body: 'Fixed in release 2.4; verified on staging.' } satisfies In<typeof CommentCreate>,
  addWorklog: { minutes: 45, description: 'Code review' } satisfies In<typeof WorklogCreate>,
  getStatistics: FILTERS_EXAMPLE satisfies In<typeof Filters>,
  createDashboard: { name: 'Release 2.4', widgets: releaseWidgets } satisfies In<typeof DashboardInput>,
  replaceDashboard: {
    name: 'Website',
    widgets: [{ type: 'stats', title: 'Website', filters: { queue_ids: [1] } }, { type: 'assignees', title: 'Who works on what' }],
  } satisfies In<typeof DashboardInput>,
  createWebhook: { url: 'https://hooks.example.com/tracker', events: ['issue.*', 'comment.added'], queue_ids: [1], description: 'Sync to the CRM' } satisfies In<typeof WebhookCreate>,
  updateWebhook: { events: ['issue.*', 'comment.added', 'worklog.added'] } satisfies In<typeof WebhookUpdate>,
};

/** What POST /statistics answers for WEB's two issues (and dashboard 1's only widget). */
const statisticsOfWeb: StatisticsResult = {
  total: 2,
  truncated: false,
  as_of: at('10:25'),
  progress: { open: 1, progress: 1, done: 0, total: 2, done_percent: 0 },
  time: { estimate_minutes: 210, spent_minutes: 75 },
  queues: [{ queue_id: 1, key: 'WEB', open: 1, progress: 1, done: 0, total: 2, estimate_minutes: 210, spent_minutes: 75 }],
  assignees: [{ assignee_id: 1, open: 1, progress: 1, done: 0, total: 2, estimate_minutes: 210, spent_minutes: 75 }],
};

/** Webhook 1, made by createWebhook's example; the ping is its first delivery. */
const webhook1: Webhook = {
  id: 1,
  url: 'https://hooks.example.com/tracker',
  events: ['issue.*', 'comment.added'],
  queue_ids: [1],
  description: 'Sync to the CRM',
  active: true,
  disabled_reason: null,
  created_at: at('10:40'),
  updated_at: at('10:40'),
};
const ping: Delivery = {
  id: 1,
  event_id: '0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6',
  event_type: 'webhook.ping',
  status: 'failed',
  attempt_count: 1,
  next_attempt_at: null,
  created_at: at('10:42'),
  attempts: [{ attempted_at: at('10:42'), status_code: 503, duration_ms: 84, error: 'The endpoint answered 503.' }],
};

/** The success answer of each operation, coherent with the world and the request examples. */
export const RESPONSE_EXAMPLES = {
  getMe: { ...ada, workspace: { id: 1, name: 'Acme' } } satisfies Me,
  listUsers: [ada, bob] satisfies User[],
  updateUser: bobRenamed satisfies User,
  inviteUser: { ...grace, setup_url: 'https://tracker.example.com/setup#code=vN3kq0yD0d6kz8H9bX2c1wQe7rT5uI3oP1aS9dF4gH2' } satisfies Out<typeof InvitedUser>,
  issueSetupLink: { setup_url: 'https://tracker.example.com/setup#code=Zx8cV6bN4mL2kJ0hG8fD6sA4pO2iU0yT8rE6wQ4eR2t' } satisfies Out<typeof SetupLink>,
  listTokens: [operatorToken] satisfies PersonalToken[],
  createToken: {
    id: 4,
    name: 'CI pipeline',
    prefix: 'trk_Xy98zw',
    created_at: at('10:01'),
    expires_at: '2027-01-31T10:01:00.000Z',
    last_used_at: null,
    token: 'trk_Xy98zwVu76ts54rq32po10nm98lk76ji54hg32fe',
  } satisfies PersonalTokenCreated,
  revokeToken: { id: 1, revoked: true },
  listQueues: [website] satisfies Queue[],
  createQueue: operations satisfies Queue,
  updateQueue: { ...website, description: REQUEST_EXAMPLES.updateQueue.description, updated_at: at('10:03') } satisfies Queue,
  listStatuses: [...website.statuses, ...operations.statuses] satisfies Status[],
  listQueuePermissions: { queue_id: 1, members: [adaOnWebsite, bobWithoutAccess, graceWithoutAccess], history: [], history_total: 0 } satisfies QueuePermissions,
  listQueuePermissionHistory: { items: [], total: 0, next_after_id: null } satisfies PermissionChangePage,
  setQueuePermission: { ...bobWithoutAccess, queue_id: 1, role: 'read-write', role_source: 'explicit', explicit_role: 'read-write' } satisfies QueuePermission,
  revokeQueuePermission: { ...bobWithoutAccess, queue_id: 1 } satisfies QueuePermission,
  createIssue: web2 satisfies Issue,
  searchIssues: [summary(web2), summary(web1)] satisfies IssueSummary[],
  getIssue: {
    ...web1,
    comments: [comment1],
    comments_total: 1,
    worklogs: [worklog1],
    worklogs_total: 1,
    history: [created],
    history_total: 1,
    links: [mentionedBy],
    links_total: 1,
    subtasks: [],
    subtasks_total: 0,
  } satisfies IssueDetails,
  listComments: { items: [comment1], total: 1, next_after_id: null } satisfies Out<typeof CommentPage>,
  listWorklogs: { items: [worklog1], total: 1, next_after_id: null } satisfies Out<typeof WorklogPage>,
  listHistory: { items: [created, moved], total: 2, next_after_id: null } satisfies Out<typeof HistoryPage>,
  listLinks: { items: [mentionedBy], total: 1, next_after_id: null } satisfies Out<typeof LinkPage>,
  listSubtasks: { items: [], total: 0, next_after_id: null } satisfies Out<typeof SubtaskPage>,
  updateIssue: web1Moved satisfies Issue,
  addComment: { id: 2, issue_id: 1, author_id: 1, body: REQUEST_EXAMPLES.addComment.body, created_at: at('10:20') } satisfies Comment,
  addWorklog: { id: 2, issue_id: 1, author_id: 1, minutes: 45, description: 'Code review', created_at: at('10:25') } satisfies Worklog,
  getStatistics: statisticsOfWeb,
  listDashboards: [dashboard1] satisfies Dashboard[],
  getDashboardStatistics: { dashboard_id: 1, widgets: [statisticsOfWeb] } satisfies DashboardStatistics,
  createDashboard: {
    ...dashboard1,
    id: 2,
    name: 'Release 2.4',
    widgets: releaseWidgets,
    created_at: at('10:30'),
    updated_at: at('10:30'),
  } satisfies Dashboard,
  replaceDashboard: {
    ...dashboard1,
    widgets: [
      { type: 'stats', title: 'Website', filters: { queue_ids: [1], mine: false, overdue: false } },
      { type: 'assignees', title: 'Who works on what', filters: { mine: false, overdue: false } },
    ],
    updated_at: at('10:31'),
  } satisfies Dashboard,
  listEvents: {
    items: [
      {
        id: '5f3d2c1b-8a7e-4c6d-9b0a-1e2f3a4b5c6d',
        type: 'issue.updated',
        timestamp: web1Moved.updated_at,
        workspace_id: 1,
        data: { issue: web1Moved, previous: { status_id: 1 }, actor_id: 1 },
      },
      {
        id: '9c8b7a6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
        type: 'comment.added',
        timestamp: at('10:20'),
        workspace_id: 1,
        data: { comment: { id: 2, issue_id: 1, author_id: 1, body: 'Fixed in release 2.4; verified on staging.', created_at: at('10:20'), issue_key: 'WEB-1' }, actor_id: 1 },
      },
    ],
    next_cursor: 'c1_MTI2',
  } satisfies EventPage,
  createWebhook: { ...webhook1, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' } satisfies WebhookCreated,
  listWebhooks: [webhook1] satisfies Webhook[],
  getWebhook: webhook1,
  updateWebhook: { ...webhook1, events: ['issue.*', 'comment.added', 'worklog.added'], updated_at: at('10:41') } satisfies Webhook,
  pingWebhook: { ...ping, status: 'pending', attempt_count: 0, next_attempt_at: at('10:42'), attempts: [] } satisfies Delivery,
  listWebhookDeliveries: { items: [ping], next_before_id: null } satisfies DeliveryPage,
  retryWebhookDelivery: { ...ping, status: 'pending', next_attempt_at: at('10:43') } satisfies Delivery,
  deleteWebhook: { id: 1, deleted: true },
  getOpenApiDocument: { openapi: '3.1.0', info: { title: 'Tracker API', version: '1.0.0' }, paths: {} },
};

/** GET /api/v1/events/stream: the frames of a stream, as text (the two events of the feed's example, then a quiet while). */
export const EVENT_STREAM_EXAMPLE = [
  'retry: 2000\n\n',
  ...[
    ['c1_MTI1', RESPONSE_EXAMPLES.listEvents.items[0]!],
    ['c1_MTI2', RESPONSE_EXAMPLES.listEvents.items[1]!],
  ].map(([id, event]) => `id: ${id as string}\nevent: ${(event as { type: string }).type}\ndata: ${JSON.stringify(event)}\n\n`),
  ': keep-alive\n\n',
].join('');

/**
 * The `Idempotency-Key` example of each POST: all different, because a contract test sends
 * every example and one key for two requests would be 422 `idempotency_key_reused`.
 */
export const IDEMPOTENCY_KEY_EXAMPLES = {
  createQueue: '0b5a4a4e-6f3c-4d8e-9d6c-1a2b3c4d5e01',
  createIssue: '0b5a4a4e-6f3c-4d8e-9d6c-1a2b3c4d5e02',
  searchIssues: '0b5a4a4e-6f3c-4d8e-9d6c-1a2b3c4d5e03',
  addComment: '0b5a4a4e-6f3c-4d8e-9d6c-1a2b3c4d5e04',
  addWorklog: '0b5a4a4e-6f3c-4d8e-9d6c-1a2b3c4d5e05',
  getStatistics: '0b5a4a4e-6f3c-4d8e-9d6c-1a2b3c4d5e06',
  createDashboard: '0b5a4a4e-6f3c-4d8e-9d6c-1a2b3c4d5e07',
} as const;

/** A tag of WEB-1 that matches no answer (version 0 never exists): If-None-Match with it always gets the issue. */
export const IF_NONE_MATCH_EXAMPLE = '"0-0000000000000000"';
/** Any current version: If-Match `*` never fails on an existing issue. */
export const IF_MATCH_EXAMPLE = '*';

const PROBLEM_DETAILS: Record<ProblemCode, string> = {
  unauthorized: 'A valid bearer token is required.',
  forbidden: 'Your role on queue WEB does not allow this.',
  not_found: 'Issue WEB-99 does not exist.',
  version_conflict: 'Issue WEB-1 is at version 2, not 1.',
  last_active_admin: 'User 1 is the last active admin of the workspace.',
  queue_key_taken: 'The queue key WEB is already used in this workspace.',
  email_taken: 'Another user already has this email.',
  session_required: 'Personal tokens are made by a person signed in (with a session\'s token), not with another personal token.',
  invalid_credentials: 'The email or the password is not right.',
  invalid_setup_code: 'This setup link is not valid: it was used, has expired, or a newer one was made. Ask an admin for a new one.',
  cross_site_request: 'Requests to /auth from another site are refused.',
  precondition_failed: 'If-Match names version 1 of WEB-1; its current version is 2.',
  cursor_expired: 'This cursor is older than the events kept (7 days): events after it were deleted. Start again without `after` (from the oldest event kept) and re-read what you keep from the API.',
  payload_too_large: 'The body is larger than 1048576 bytes.',
  bad_request: 'The request is not valid HTTP.',
  request_timeout: 'The request was not received in time.',
  headers_too_large: 'The request line and headers are larger than 16 KiB.',
  validation_failed: 'The request is not valid.',
  idempotency_key_reused: 'This Idempotency-Key was used within the last 24 hours for another request (another operation, path or body). Use a new key for a new request.',
  rate_limited: 'At most 600 requests per minute per token.',
  service_unavailable: 'The issues service is unavailable. Retry later.',
  statistics_unavailable: 'The statistics replica is being rebuilt. Retry later.',
};

const PROBLEM_EXTRA: Partial<Record<ProblemCode, Record<string, unknown>>> = {
  version_conflict: { version: 2 },
  precondition_failed: { version: 2 },
  validation_failed: { errors: [{ path: 'title', message: 'Too small: expected string to have >=1 characters' }] },
};

/** One problem body per code, as the services answer it. */
export const PROBLEM_EXAMPLES = Object.fromEntries(
  (Object.keys(PROBLEM_CODES) as ProblemCode[]).map((code) => [
    code,
    { type: problemType(code), title: PROBLEM_CODES[code].title, status: PROBLEM_CODES[code].status, detail: PROBLEM_DETAILS[code], code, ...PROBLEM_EXTRA[code] },
  ]),
) as unknown as Record<ProblemCode, Record<string, unknown>>;
