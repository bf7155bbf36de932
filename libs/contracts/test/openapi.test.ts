import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { API_OPERATIONS, AUTH_ONLY_PROBLEMS, CHANGES_WITHIN_V1, errorCodesOf, EXTENSION_OPERATIONS, HISTORY_FIELDS, HistoryEntry, ISSUE_READ_LIMITS, openApiDocument, PROBLEM_CODES } from '../src';

const doc = openApiDocument();
const schemas = doc.components.schemas;

/** The core operations (docs/decisions.md, Operations). */
const CORE_OPERATIONS = [
  'GET /api/v1/me',
  'GET /api/v1/queues',
  'POST /api/v1/queues',
  'GET /api/v1/statuses',
  'GET /api/v1/users',
  'POST /api/v1/issues/search',
  'GET /api/v1/issues/{key}',
  'PATCH /api/v1/issues/{key}',
  'POST /api/v1/issues',
  'POST /api/v1/issues/{key}/comments',
  'POST /api/v1/issues/{key}/worklogs',
  'POST /api/v1/statistics',
  'GET /api/v1/dashboards',
  'POST /api/v1/dashboards',
  'PUT /api/v1/dashboards/{dashboard_id}',
  'GET /api/v1/queues/{queue_id}/permissions',
  'PUT /api/v1/queues/{queue_id}/permissions/{user_id}',
  'DELETE /api/v1/queues/{queue_id}/permissions/{user_id}',
  'PATCH /api/v1/queues/{queue_id}',
  'PATCH /api/v1/users/{user_id}',
  'POST /api/v1/users',
  'POST /api/v1/users/{user_id}/setup-link',
  'GET /api/v1/tokens',
  'POST /api/v1/tokens',
  'DELETE /api/v1/tokens/{token_id}',
];
/** Beyond the core operations: the pages of what an issue read embeds only the newest of (services/issues/README.md). */
const LIST_ENDPOINTS = ['comments', 'worklogs', 'history', 'links', 'subtasks'].map((list) => `GET /api/v1/issues/{key}/${list}`);
/** Beyond the core operations too: a dashboard's statistics in one request (services/statistics/README.md). */
const DASHBOARD_STATISTICS = 'GET /api/v1/dashboards/{dashboard_id}/statistics';
/** And the pages of what a queue's permissions read embeds only the newest of. */
const PERMISSION_HISTORY = 'GET /api/v1/queues/{queue_id}/permissions/history';
const EVENT_STREAM = 'GET /api/v1/events/stream';
const EVENT_FEED = 'GET /api/v1/events';
/** And the webhooks (services/notifications/README.md). */
const WEBHOOKS = [
  'POST /api/v1/webhooks',
  'GET /api/v1/webhooks',
  'GET /api/v1/webhooks/{webhook_id}',
  'PATCH /api/v1/webhooks/{webhook_id}',
  'DELETE /api/v1/webhooks/{webhook_id}',
  'GET /api/v1/webhooks/{webhook_id}/deliveries',
  'POST /api/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/retry',
  'POST /api/v1/webhooks/{webhook_id}/ping',
];
const CREATIONS = [
  'POST /api/v1/queues', 'POST /api/v1/issues', 'POST /api/v1/issues/{key}/comments', 'POST /api/v1/issues/{key}/worklogs', 'POST /api/v1/dashboards', 'POST /api/v1/users', 'POST /api/v1/tokens',
  'POST /api/v1/webhooks', 'POST /api/v1/webhooks/{webhook_id}/ping',
];

const REQUEST_SCHEMA_NAMES = [
  'QueueCreate', 'QueueSettings', 'QueuePermissionInput', 'UserChanges', 'UserInvite', 'SetupLinkRequest', 'TokenCreate', 'IssueCreate', 'IssueUpdate', 'CommentCreate', 'WorklogCreate', 'Filters', 'Widget', 'DashboardInput', 'WebhookCreate', 'WebhookUpdate',
];

const documented = () =>
  Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([p, item]) =>
    Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${p}`, operation })),
  );

function validateOpenApi(document: unknown): Promise<{ valid: boolean; version: string; errors: unknown }> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [path.join(__dirname, 'validate-openapi.mjs')], (error, stdout) =>
      error ? reject(error) : resolve(JSON.parse(stdout)),
    );
    child.stdin!.end(JSON.stringify(document));
  });
}

describe('the OpenAPI document', () => {
  test('when validated against the OpenAPI schemas, then it is a valid 3.1 document of version 1.0.0, the version of the API v1 throughout', async () => {
    const result = await validateOpenApi(doc);
    expect(result).toEqual({ valid: true, version: '3.1', errors: null });
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
  });

  test('then info names the contact, an SPDX license and the compatibility policy of 1.x', () => {
    expect(doc.info.contact).toEqual({ name: 'Tracker team', url: 'https://tracker.dev' });
    expect(doc.info.license).toEqual({ name: 'Apache 2.0', identifier: 'Apache-2.0' });
    expect(doc.info.description).toMatch(/\*\*Compatibility\.\*\* Within 1\.x/);
    expect(doc.info.description).toMatch(/answers may gain fields/);
    expect(doc.info.description).toMatch(/new optional request fields, new operations and new problem codes/);
    expect(doc.info.description).toMatch(/must ignore answer fields they do not know/);
    expect(doc.info.description).toMatch(/Nothing is removed or renamed within 1\.x/);
  });

  test('then additions within v1 are announced in the description and in docs/api-changelog.md, not by the version', () => {
    const changelog = fs.readFileSync(path.join(__dirname, '../../../docs/api-changelog.md'), 'utf8');
    expect(CHANGES_WITHIN_V1.length).toBeGreaterThan(0);
    for (const change of CHANGES_WITHIN_V1) {
      expect(doc.info.description).toContain(`- ${change}`);
      expect(changelog).toContain(`- ${change}`);
    }
  });

  test('when a document is broken, then the validator says so', async () => {
    const broken = structuredClone(doc);
    delete broken.paths['/api/v1/me'].get.responses['200'].description;
    expect((await validateOpenApi(broken)).valid).toBe(false);
  });

  test("then it documents exactly the core operations, the issue list pages, a dashboard's statistics, the permission history pages, the event feed, its live stream, the webhooks and the document itself", () => {
    expect(documented().map((o) => o.name).sort()).toEqual([...CORE_OPERATIONS, ...LIST_ENDPOINTS, DASHBOARD_STATISTICS, PERMISSION_HISTORY, EVENT_FEED, EVENT_STREAM, ...WEBHOOKS, 'GET /api/v1/openapi.json'].sort());
    const extensions = API_OPERATIONS.filter((o) => (EXTENSION_OPERATIONS as readonly string[]).includes(o.operationId));
    expect(extensions.map((o) => `${o.method.toUpperCase()} ${o.path}`).sort()).toEqual([...LIST_ENDPOINTS, DASHBOARD_STATISTICS, PERMISSION_HISTORY, EVENT_FEED, EVENT_STREAM, ...WEBHOOKS].sort());
  });

  test('then the list pages take after_id and limit in the query, and answer items, total and next_after_id', () => {
    for (const name of [...LIST_ENDPOINTS, PERMISSION_HISTORY]) {
      const operation = documented().find((o) => o.name === name)!.operation;
      const query = operation.parameters.filter((p: any) => p.in === 'query');
      expect([name, query.map((p: any) => [p.name, p.required, p.schema])]).toEqual([
        name,
        [
          ['after_id', false, { type: 'integer', minimum: 0, maximum: 2_147_483_647, default: 0 }],
          ['limit', false, { type: 'integer', minimum: 1, maximum: ISSUE_READ_LIMITS.pageMax, default: ISSUE_READ_LIMITS.pageDefault }],
        ],
      ]);
      const schema = schemas[operation.responses['200'].content['application/json'].schema.$ref.split('/').pop()];
      expect([name, schema.required, schema.properties.items.maxItems]).toEqual([name, ['items', 'total', 'next_after_id'], ISSUE_READ_LIMITS.pageMax]);
    }
  });

  test('then an issue read documents its embedded lists as bounded, with their totals, and search rows a cut description', () => {
    for (const list of ['comments', 'worklogs', 'history', 'links', 'subtasks']) {
      expect([list, schemas.IssueDetails.properties[list].maxItems]).toEqual([list, ISSUE_READ_LIMITS.embedded]);
      expect([list, schemas.IssueDetails.required]).toEqual([list, expect.arrayContaining([list, `${list}_total`])]);
      expect(schemas.IssueDetails.properties[`${list}_total`]).toMatchObject({ type: 'integer', minimum: 0, maximum: ISSUE_READ_LIMITS.counted });
    }
    expect(schemas.HistoryEntry.required).toEqual(expect.arrayContaining(['from_truncated', 'to_truncated']));
    expect(schemas.HistoryEntry.properties.from_truncated.description).toContain('1,000 characters');
    expect(doc.paths['/api/v1/issues/search'].post.responses['200'].content['application/json'].schema.items).toEqual({ $ref: '#/components/schemas/IssueSummary' });
    expect(schemas.IssueSummary.required).toContain('description_truncated');
    expect(schemas.IssueSummary.properties.description.description).toContain('500 characters');
  });

  test('then a queue\'s permissions read documents its history as bounded, with its total, paged by GET …/permissions/history', () => {
    expect(schemas.QueuePermissions.properties.history.maxItems).toBe(ISSUE_READ_LIMITS.embedded);
    expect(schemas.QueuePermissions.required).toEqual(expect.arrayContaining(['history', 'history_total']));
    expect(schemas.QueuePermissions.properties.history_total).toMatchObject({ type: 'integer', minimum: 0, maximum: ISSUE_READ_LIMITS.counted });
    expect(schemas.PermissionChangePage.properties.items.items).toEqual({ $ref: '#/components/schemas/PermissionChange' });
    const page = doc.paths['/api/v1/queues/{queue_id}/permissions/history'].get;
    expect([page.operationId, page.tags, page.description]).toEqual(['listQueuePermissionHistory', ['Permissions'], 'Rights needed: `admin` of the queue or of the workspace.']);
    expect(Object.keys(page.responses)).toEqual(expect.arrayContaining(['200', '403', '404', '422']));
    expect(doc.info.description).toContain('GET /api/v1/queues/{queue_id}/permissions/history');
  });

  test('then creations answer 201 and everything else 200 (docs/decisions.md)', () => {
    for (const { name, operation } of documented()) {
      const success = Object.keys(operation.responses).filter((status) => status.startsWith('2'));
      expect([name, success]).toEqual([name, [CREATIONS.includes(name) ? '201' : '200']]);
    }
  });

  test('then every operation but the document needs the bearer token, and documents 401, 422, 429 and 503 as problems', () => {
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    for (const { name, operation } of documented()) {
      if (name === 'GET /api/v1/openapi.json') {
        expect(operation.security).toEqual([]);
        continue;
      }
      expect(operation.security).toBeUndefined();
      for (const status of ['401', '413', '422', '429', '503']) expect([name, operation.responses[status]]).toEqual([name, expect.anything()]);
    }
  });

  test('then an operation with a path id or key documents 404, and every operation with rights beyond membership 403', () => {
    for (const { name, operation } of documented()) {
      if (name.includes('{')) expect([name, operation.responses['404']]).toEqual([name, expect.anything()]);
    }
    const withoutForbidden = documented()
      .filter(({ operation }) => !operation.responses['403'])
      .map((o) => o.name);
    expect(withoutForbidden.sort()).toEqual(
      [
        'GET /api/v1/me', 'GET /api/v1/users', 'GET /api/v1/queues', 'GET /api/v1/statuses', 'GET /api/v1/issues/{key}', ...LIST_ENDPOINTS, 'GET /api/v1/dashboards', DASHBOARD_STATISTICS,
        // Every member reads the feed and its stream: each event only to whoever may read its object.
        EVENT_FEED, EVENT_STREAM,
        // A caller's own tokens: another user's is 404, as one that does not exist.
        'GET /api/v1/tokens', 'DELETE /api/v1/tokens/{token_id}',
        'GET /api/v1/openapi.json',
      ].sort(),
    );
  });

  test('then the conflicts of docs/decisions.md are documented where they happen, with their codes', () => {
    const conflict = (name: string) => documented().find((o) => o.name === name)!.operation.responses['409'];
    expect(conflict('PATCH /api/v1/issues/{key}')).toEqual({ $ref: '#/components/responses/VersionConflict' });
    expect(conflict('PATCH /api/v1/users/{user_id}')).toEqual({ $ref: '#/components/responses/LastActiveAdmin' });
    expect(conflict('POST /api/v1/queues')).toEqual({ $ref: '#/components/responses/QueueKeyTaken' });
    expect(conflict('POST /api/v1/users')).toEqual({ $ref: '#/components/responses/EmailTaken' });
    expect(conflict('POST /api/v1/users/{user_id}/setup-link')).toEqual({ $ref: '#/components/responses/EmailTaken' });
    expect(schemas.VersionConflictProblem.required).toContain('version');
  });

  test('then every problem body is exact: its code, status, title and type fixed (and open to fields added within 1.x)', () => {
    for (const [code, { status, title }] of Object.entries(PROBLEM_CODES)) {
      const name = `${code.split('_').map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}Problem`;
      const schema = schemas[name];
      if (AUTH_ONLY_PROBLEMS.includes(code as never)) {
        // Answered by /auth alone (README), never by an operation here: not published.
        expect([code, schema]).toEqual([code, undefined]);
        continue;
      }
      expect(schema.additionalProperties).toBeUndefined();
      expect(schema.properties.code.const).toBe(code);
      expect(schema.properties.status.const).toBe(status);
      expect(schema.properties.title.const).toBe(title);
      expect(schema.properties.type.const).toBe(`https://tracker.dev/problems/${code.replace(/_/g, '-')}`);
    }
    expect(schemas.ValidationFailedProblem.required).toContain('errors');
  });

  test('then statistics and dashboards document 503 statistics_unavailable, other services only service_unavailable', () => {
    for (const operation of API_OPERATIONS) {
      const codes = errorCodesOf(operation);
      expect([operation.operationId, codes.includes('statistics_unavailable')]).toEqual([operation.operationId, operation.service === 'statistics']);
    }
    const dashboards = doc.paths['/api/v1/dashboards'].get.responses['503'];
    expect(dashboards.content['application/problem+json'].schema.oneOf).toHaveLength(2);
    expect(dashboards.headers['Retry-After']).toBeDefined();
  });

  test('then the limits of docs/decisions.md are in the request schemas', () => {
    const props = (name: string) => schemas[name].properties;
    expect(props('QueueCreate').key).toMatchObject({ minLength: 2, maxLength: 12 });
    expect(props('QueueCreate').name).toMatchObject({ minLength: 1, maxLength: 100 });
    expect(props('QueueSettings').name).toMatchObject({ minLength: 1, maxLength: 100 });
    expect(props('UserChanges').name).toMatchObject({ minLength: 1, maxLength: 100 });
    expect(props('IssueCreate').title).toMatchObject({ minLength: 1, maxLength: 500 });
    expect(props('IssueCreate').description).toMatchObject({ maxLength: 100_000 });
    expect(props('IssueCreate').labels).toMatchObject({ maxItems: 50, items: { minLength: 1, maxLength: 100 } });
    expect(props('IssueCreate').type).toMatchObject({ minLength: 1, maxLength: 50 });
    expect(props('IssueCreate').estimate_minutes).toMatchObject({ type: 'integer', minimum: 0 });
    expect(props('IssueUpdate').title).toMatchObject({ minLength: 1, maxLength: 500 });
    expect(props('CommentCreate').body).toMatchObject({ minLength: 1, maxLength: 50_000 });
    expect(props('WorklogCreate').minutes).toMatchObject({ type: 'integer', minimum: 1, maximum: 1440 });
    expect(props('DashboardInput').name).toMatchObject({ minLength: 1, maxLength: 500 });
    expect(props('DashboardInput').widgets).toMatchObject({ maxItems: 30 });
    expect(props('DashboardInput').widgets.description).toMatch(/at most 1000 ids .*at most 4000 characters/);
    for (const list of ['queue_ids', 'status_ids', 'assignee_ids']) expect(props('Filters')[list]).toMatchObject({ maxItems: 100, description: expect.stringContaining('100') });
    expect(doc.paths['/api/v1/dashboards'].post.summary).toContain('at most 100');
    expect(doc.paths['/api/v1/issues/search'].post.responses['200'].content['application/json'].schema.maxItems).toBe(2000);
  });

  test('then request bodies reject unknown fields and state their defaults in words, and answers are open and require their fields', () => {
    for (const name of REQUEST_SCHEMA_NAMES) expect([name, schemas[name].additionalProperties]).toEqual([name, false]);
    expect(schemas.IssueCreate.required).toEqual(['queue_id', 'title']);
    expect(schemas.IssueCreate.properties.priority.description).toContain('Default: `"normal"`.');
    expect(schemas.Filters.properties.mine.description).toContain('Default: `false`.');
    expect(schemas.Widget.properties.filters.description).toContain('Default: `{}`.');
    expect(schemas.IssueUpdate.required).toBeUndefined();
    // openapi-typescript (default options) makes a property with `default` required: none in the document.
    expect(JSON.stringify(schemas)).not.toMatch(/"default":/);
    for (const name of [
      'Me', 'User', 'InvitedUser', 'SetupLink', 'PersonalToken', 'PersonalTokenCreated', 'TokenRevoked', 'Queue', 'Status', 'Issue', 'IssueSummary', 'IssueDetails', 'Comment', 'Worklog', 'CommentPage', 'HistoryPage', 'Dashboard',
      'StatisticsResult', 'QueuePermissions', 'QueuePermission',
    ]) {
      expect([name, schemas[name].additionalProperties, schemas[name].required.length]).toEqual([name, undefined, Object.keys(schemas[name].properties).length]);
    }
    const answerSchemas = Object.keys(schemas).filter((name) => !REQUEST_SCHEMA_NAMES.includes(name));
    expect(answerSchemas.filter((name) => JSON.stringify(schemas[name]).includes('"additionalProperties":false'))).toEqual([]);
  });

  test('then every $ref names a component that exists', () => {
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/(\w+)\/([\w-]+)"/g)];
    expect(refs.length).toBeGreaterThan(50);
    for (const [, kind, name] of refs) expect([kind, name, doc.components[kind!]?.[name!]]).toEqual([kind, name, expect.anything()]);
  });
});

/** Every schema inside `schema`, with where it is. */
function schemaNodes(schema: any, at: string, out: Array<[string, any]> = []): Array<[string, any]> {
  if (!schema || typeof schema !== 'object') return out;
  out.push([at, schema]);
  for (const [name, child] of Object.entries(schema.properties ?? {})) schemaNodes(child, `${at}.${name}`, out);
  if (schema.items) schemaNodes(schema.items, `${at}[]`, out);
  for (const key of ['anyOf', 'oneOf', 'allOf']) (schema[key] ?? []).forEach((child: unknown, i: number) => schemaNodes(child, `${at}|${i}`, out));
  return out;
}

const resolveRef = (object: any) => (object?.$ref ? String(object.$ref).split('/').slice(1).reduce((o: any, k: string) => o[k], doc) : object);
const operations = () => documented().map(({ name, operation }) => ({ name, operation, api: API_OPERATIONS.find((o) => o.operationId === operation.operationId)! }));
const responsesOf = (operation: any) => Object.entries(operation.responses as Record<string, any>).map(([status, r]) => [status, resolveRef(r)] as const);

describe('the OpenAPI document explains itself', () => {
  test('then every component schema has a description, and so has every property at any depth', () => {
    const undescribed: string[] = [];
    let properties = 0;
    for (const [name, schema] of Object.entries(schemas as Record<string, any>)) {
      if (!schema.description) undescribed.push(name);
      for (const [at, node] of schemaNodes(schema, name)) {
        for (const [property, child] of Object.entries((node.properties ?? {}) as Record<string, any>)) {
          properties += 1;
          if (!child.description) undescribed.push(`${at}.${property}`);
        }
      }
    }
    expect(undescribed).toEqual([]);
    expect(properties).toBeGreaterThan(300);
  });

  test('then every inline schema of an operation, every parameter, header, response, operation and tag has a description', () => {
    const undescribed: string[] = [];
    for (const { name, operation } of documented()) {
      if (!operation.description) undescribed.push(name);
      for (const parameter of (operation.parameters ?? []).map(resolveRef)) if (!parameter.description) undescribed.push(`${name} ${parameter.name}`);
      for (const [status, response] of responsesOf(operation)) {
        if (!response.description) undescribed.push(`${name} ${status}`);
        for (const [header, value] of Object.entries((response.headers ?? {}) as Record<string, any>)) if (!resolveRef(value).description) undescribed.push(`${name} ${status} ${header}`);
        for (const media of Object.values((response.content ?? {}) as Record<string, any>)) if (!media.schema.$ref && !media.schema.description) undescribed.push(`${name} ${status} schema`);
      }
      if (operation.requestBody && !operation.requestBody.description) undescribed.push(`${name} request body`);
    }
    for (const tag of doc.tags) if (!tag.description) undescribed.push(`tag ${tag.name}`);
    expect(undescribed).toEqual([]);
    expect(doc.tags.map((t: any) => t.name).sort()).toEqual([...new Set(API_OPERATIONS.map((o) => o.tag))].sort());
  });

  test('then only the response components some operation uses are published', () => {
    const text = JSON.stringify(doc.paths);
    for (const name of Object.keys(doc.components.responses)) expect([name, text.includes(`"#/components/responses/${name}"`)]).toEqual([name, true]);
    expect(doc.components.responses.StatisticsUnavailable).toBeUndefined();
  });

  test('then answers are application/json and problems application/problem+json, without a charset; the live stream alone is text/event-stream', () => {
    const types = new Set<string>();
    for (const { name, operation } of documented()) {
      for (const [status, response] of responsesOf(operation)) {
        for (const type of Object.keys(response.content ?? {})) types.add(`${status.startsWith('2') ? (name === EVENT_STREAM ? 'stream' : '2xx') : 'error'} ${type}`);
      }
    }
    expect([...types].sort()).toEqual(['2xx application/json', 'error application/problem+json', 'stream text/event-stream']);
  });

  test('then the live stream documents its frames, Last-Event-ID, after and types, and its refusals before it begins: 401, 410, 422, 429', () => {
    const { operation } = documented().find((o) => o.name === EVENT_STREAM)!;
    const stream = operation.responses['200'].content['text/event-stream'];
    expect(stream.schema).toMatchObject({ type: 'string', description: expect.stringContaining('`id: <cursor after it>`') });
    expect(stream.example).toMatch(/^retry: 2000\n\nid: c1_MTI1\nevent: issue\.updated\ndata: \{.*\}\n\nid: c1_MTI2\nevent: comment\.added\ndata: \{.*\}\n\n: keep-alive\n\n$/);
    expect(operation.parameters.map((p: any) => [p.in, p.name])).toEqual([['query', 'after'], ['query', 'types'], ['header', 'Last-Event-ID']]);
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '401', '410', '422', '429']));
  });
});

describe('HistoryEntry', () => {
  test('then `field` is one of the fields history records or "created", and `from`/`to` are typed, null included', () => {
    expect(schemas.HistoryEntry.properties.field).toMatchObject({ type: 'string', enum: [...HISTORY_FIELDS] });
    expect(HISTORY_FIELDS).toEqual(['created', 'title', 'description', 'status_id', 'position', 'assignee_id', 'parent_id', 'priority', 'type', 'labels', 'due_date', 'estimate_minutes']);
    for (const side of ['from', 'to']) {
      expect(schemas.HistoryEntry.properties[side].anyOf).toEqual([{ type: 'string' }, { type: 'number' }, { type: 'array', items: { type: 'string' } }, { type: 'null' }]);
    }
  });

  test('when the service answers an entry of any recorded field, then it validates, and an unknown field or value type does not', () => {
    const entry = (field: string, from: unknown, to: unknown) => ({ field, from, to, from_truncated: false, to_truncated: false, actor_id: 1, at: '2026-11-02T09:00:00.000Z' });
    for (const valid of [
      entry('created', null, null),
      entry('title', 'a', 'b'),
      entry('status_id', 1, 2),
      entry('position', 1, 2.5),
      entry('assignee_id', null, 1),
      entry('labels', [], ['x']),
      entry('due_date', '2026-12-31', null),
    ]) {
      expect(HistoryEntry.parse(valid)).toEqual(valid);
    }
    expect(HistoryEntry.safeParse(entry('spent_minutes', 0, 1)).success).toBe(false);
    expect(HistoryEntry.safeParse(entry('title', { a: 1 }, 'b')).success).toBe(false);
  });
});

describe('the headers and conditional requests of the document', () => {
  const POSTS = ['createQueue', 'createIssue', 'addComment', 'addWorklog', 'createDashboard', 'searchIssues', 'getStatistics'];
  const WRITES = ['createQueue', 'createIssue', 'addComment', 'addWorklog', 'createDashboard'];
  /** The POSTs of accounts and webhooks: their services take no Idempotency-Key (a replay would have to keep the secret answered), so the document offers none. */
  const ACCOUNT_POSTS = ['inviteUser', 'issueSetupLink', 'createToken', 'createWebhook', 'pingWebhook', 'retryWebhookDelivery'];
  const byId = (id: string) => operations().find((o) => o.operation.operationId === id)!.operation;
  const headerParameter = (operation: any, name: string) => (operation.parameters ?? []).map(resolveRef).find((p: any) => p.in === 'header' && p.name === name);

  test('then every answer of an authenticated operation declares X-Request-Id, and every success RateLimit-Limit and RateLimit-Remaining', () => {
    for (const { name, operation, api } of operations()) {
      for (const [status, response] of responsesOf(operation)) {
        const headers = Object.fromEntries(Object.entries(response.headers ?? {}).map(([h, v]) => [h, resolveRef(v)]));
        expect([name, status, headers['X-Request-Id']?.schema?.type]).toEqual([name, status, 'string']);
        if (status.startsWith('2') && !api.public) expect([name, Object.keys(headers)]).toEqual([name, expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining'])]);
      }
    }
    expect(doc.components.headers['X-Request-Id'].required).toBe(true);
  });

  test('then exactly the POST operations but those of accounts take an optional Idempotency-Key header, each with its own example', () => {
    const taking = operations().filter(({ operation }) => headerParameter(operation, 'Idempotency-Key'));
    expect(taking.map((o) => o.operation.operationId).sort()).toEqual([...POSTS].sort());
    const posts = operations().filter(({ api }) => api.method === 'post').map((o) => o.operation.operationId);
    expect(posts.filter((id) => !POSTS.includes(id)).sort()).toEqual([...ACCOUNT_POSTS].sort());
    // Without a key to replay, each says what a repeat does.
    for (const id of ACCOUNT_POSTS) expect([id, byId(id).description]).toEqual([id, expect.stringContaining('No `Idempotency-Key` is taken: ')]);
    const examples = taking.map(({ operation }) => headerParameter(operation, 'Idempotency-Key').example);
    expect(new Set(examples).size).toBe(POSTS.length);
    for (const { operation } of taking) {
      expect(headerParameter(operation, 'Idempotency-Key')).toMatchObject({ required: false, schema: { type: 'string', minLength: 1, maxLength: 255 } });
    }
  });

  test('then the five writes replay with Idempotent-Replayed on their 201 and answer 422 idempotency_key_reused; search and statistics do not', () => {
    for (const id of WRITES) {
      const operation = byId(id);
      expect([id, operation.responses['201'].headers['Idempotent-Replayed']]).toEqual([id, { $ref: '#/components/headers/Idempotent-Replayed' }]);
      const problems = operation.responses['422'].content['application/problem+json'].schema.oneOf.map((r: any) => r.$ref);
      expect([id, problems]).toEqual([id, ['#/components/schemas/ValidationFailedProblem', '#/components/schemas/IdempotencyKeyReusedProblem']]);
      expect(headerParameter(operation, 'Idempotency-Key').description).toMatch(/24 hours.*same request \(method, path and JSON body\).*Idempotent-Replayed: true.*idempotency_key_reused.*Refusals are not stored.*per workspace and user/);
    }
    expect(doc.components.headers['Idempotent-Replayed']).toMatchObject({ schema: { type: 'string', enum: ['true', 'false'] } });
    expect(doc.components.headers['Idempotent-Replayed'].required).toBeUndefined();
    for (const id of ['searchIssues', 'getStatistics']) {
      expect([id, byId(id).responses['422']]).toEqual([id, { $ref: '#/components/responses/ValidationFailed' }]);
      expect(headerParameter(byId(id), 'Idempotency-Key').description).toMatch(/without effect/);
    }
  });

  test('then getIssue answers an ETag, takes If-None-Match and may answer 304 without a body', () => {
    const operation = byId('getIssue');
    expect(operation.responses['200'].headers.ETag).toEqual({ $ref: '#/components/headers/ETag' });
    expect(headerParameter(operation, 'If-None-Match')).toMatchObject({ required: false, example: '"0-0000000000000000"' });
    expect(operation.responses['304'].content).toBeUndefined();
    expect(operation.responses['304'].headers.ETag).toEqual({ $ref: '#/components/headers/ETag' });
    const etag = new RegExp(doc.components.headers.ETag.schema.pattern);
    expect(['"1-0123456789abcdef"', '"12-ffffffffffffffff"'].every((t) => etag.test(t))).toBe(true);
    expect(['"0-0123456789abcdef"', '"1-0123456789ABCDEF"', 'W/"1-0123456789abcdef"', '1-0123456789abcdef'].some((t) => etag.test(t))).toBe(false);
  });

  test('then updateIssue answers an ETag, takes If-Match and may answer 412 precondition_failed with the current version, beside 409', () => {
    const operation = byId('updateIssue');
    expect(operation.responses['200'].headers.ETag).toEqual({ $ref: '#/components/headers/ETag' });
    expect(headerParameter(operation, 'If-Match')).toMatchObject({ required: false, example: '*' });
    expect(headerParameter(operation, 'If-Match').description).toMatch(/version parts are compared.*`\*` matches.*weak tag .* never matches/);
    expect(operation.responses['412']).toEqual({ $ref: '#/components/responses/PreconditionFailed' });
    expect(operation.responses['409']).toEqual({ $ref: '#/components/responses/VersionConflict' });
    expect(schemas.PreconditionFailedProblem.required).toContain('version');
  });

  test('then a search answers X-Total-Count and X-Truncated, and the deprecated Search-Truncated', () => {
    const headers = byId('searchIssues').responses['200'].headers;
    const resolved = (name: string) => resolveRef(headers[name]);
    expect(resolved('X-Total-Count')).toMatchObject({ required: true, schema: { type: 'integer', minimum: 0, maximum: 2000 } });
    expect(resolved('X-Truncated')).toMatchObject({ required: true, schema: { type: 'string', enum: ['true', 'false'] } });
    expect(resolved('Search-Truncated')).toMatchObject({ deprecated: true, schema: { type: 'string', enum: ['true', 'false'] } });
  });

  test('then the filters say an empty id list selects nothing, and statistics how truncation counts', () => {
    for (const list of ['queue_ids', 'status_ids', 'assignee_ids']) expect(schemas.Filters.properties[list].description).toMatch(/An empty list selects nothing/);
    expect(schemas.Filters.properties.label.description).toMatch(/case-sensitively/);
    expect(byId('getStatistics').description).toMatch(/`total` still counts every match, while `progress`, `time`, `queues` and `assignees` count the 2000/);
    expect(byId('searchIssues').description).toMatch(/X-Total-Count.*X-Truncated/);
  });
});

describe("people's accounts in the document", () => {
  const operation = (path: string, method: string) => doc.paths[path][method];

  test('then inviting and setup links are for workspace admins, and answer the setup link', () => {
    const invite = operation('/api/v1/users', 'post');
    const link = operation('/api/v1/users/{user_id}/setup-link', 'post');
    for (const answered of [invite, link]) {
      expect(answered.responses['403']).toEqual({ $ref: '#/components/responses/Forbidden' });
      expect(answered.description).toMatch(/^Rights needed: workspace admin only/);
    }
    expect([invite.requestBody.required, link.requestBody.required]).toEqual([true, false]);
    expect(schemas.InvitedUser.required).toEqual(expect.arrayContaining(['email', 'setup_url']));
    expect(schemas.SetupLink.required).toEqual(['setup_url']);
    expect(schemas.User.required).toContain('email');
  });

  test('then tokens are the caller\'s own: made with a signed-in page\'s token (403 session_required), the secret answered once, another user\'s 404', () => {
    const create = operation('/api/v1/tokens', 'post');
    expect(create.responses['403']).toEqual({ $ref: '#/components/responses/SessionRequired' });
    expect(create.description).toContain('POST /auth/token');
    expect(operation('/api/v1/tokens/{token_id}', 'delete').responses['404']).toEqual({ $ref: '#/components/responses/NotFound' });
    expect(operation('/api/v1/tokens', 'get').responses['200'].content['application/json'].schema.maxItems).toBe(1000);
    expect(Object.keys(schemas.PersonalToken.properties)).not.toContain('token');
    expect(schemas.PersonalTokenCreated.required).toContain('token');
    expect(schemas.TokenCreate.properties.expires_in_days.anyOf).toEqual([{ type: 'integer', minimum: 1, maximum: 366 }, { type: 'null' }]);
    expect(schemas.TokenCreate.required).toEqual(['name', 'expires_in_days']);
    expect(doc.components.parameters.TokenId).toMatchObject({ name: 'token_id', in: 'path', required: true });
    expect(doc.tags.find((tag: any) => tag.name === 'Tokens')?.description).toMatch(/personal tokens/);
  });

  test('then /auth is named as the browsers\' way in, described in the README, and is no path of the document', () => {
    expect(doc.info.description).toMatch(/`\/auth\/\*`.*exist for browsers and are described in the README, not in this document/);
    expect(Object.keys(doc.paths).filter((p) => !p.startsWith('/api/v1/'))).toEqual([]);
    expect(JSON.stringify(doc.paths)).not.toMatch(/InvalidCredentials|InvalidSetupCode|CrossSiteRequest/);
  });
});
