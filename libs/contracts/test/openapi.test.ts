import { execFile } from 'node:child_process';
import path from 'node:path';
import { API_OPERATIONS, errorCodesOf, EXTENSION_OPERATIONS, ISSUE_READ_LIMITS, openApiDocument, PROBLEM_CODES } from '../src';

const doc = openApiDocument();
const schemas = doc.components.schemas;

/** The spec's endpoint table (api-v1.md, Endpoints), verbatim. */
const SPEC_ENDPOINTS = [
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
];
/** Beyond the spec's table: the pages of what an issue read embeds only the newest of (services/issues/README.md). */
const LIST_ENDPOINTS = ['comments', 'worklogs', 'history', 'links', 'subtasks'].map((list) => `GET /api/v1/issues/{key}/${list}`);
const CREATIONS = ['POST /api/v1/queues', 'POST /api/v1/issues', 'POST /api/v1/issues/{key}/comments', 'POST /api/v1/issues/{key}/worklogs', 'POST /api/v1/dashboards'];

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
  test('when validated against the OpenAPI schemas, then it is a valid 3.1 document of version 1.0.0', async () => {
    const result = await validateOpenApi(doc);
    expect(result).toEqual({ valid: true, version: '3.1', errors: null });
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
  });

  test('when a document is broken, then the validator says so', async () => {
    const broken = structuredClone(doc);
    delete broken.paths['/api/v1/me'].get.responses['200'].description;
    expect((await validateOpenApi(broken)).valid).toBe(false);
  });

  test('then it documents exactly the spec endpoints, the issue list pages and the document itself', () => {
    expect(documented().map((o) => o.name).sort()).toEqual([...SPEC_ENDPOINTS, ...LIST_ENDPOINTS, 'GET /api/v1/openapi.json'].sort());
    const extensions = API_OPERATIONS.filter((o) => (EXTENSION_OPERATIONS as readonly string[]).includes(o.operationId));
    expect(extensions.map((o) => `${o.method.toUpperCase()} ${o.path}`).sort()).toEqual([...LIST_ENDPOINTS].sort());
  });

  test('then the list pages take after_id and limit in the query, and answer items, total and next_after_id', () => {
    for (const name of LIST_ENDPOINTS) {
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

  test('then creations answer 201 and everything else 200, as the spec says', () => {
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
      ['GET /api/v1/me', 'GET /api/v1/users', 'GET /api/v1/queues', 'GET /api/v1/statuses', 'GET /api/v1/issues/{key}', ...LIST_ENDPOINTS, 'GET /api/v1/dashboards', 'GET /api/v1/openapi.json'].sort(),
    );
  });

  test('then the conflicts of decisions.md are documented where they happen, with their codes', () => {
    const conflict = (name: string) => documented().find((o) => o.name === name)!.operation.responses['409'];
    expect(conflict('PATCH /api/v1/issues/{key}')).toEqual({ $ref: '#/components/responses/VersionConflict' });
    expect(conflict('PATCH /api/v1/users/{user_id}')).toEqual({ $ref: '#/components/responses/LastActiveAdmin' });
    expect(conflict('POST /api/v1/queues')).toEqual({ $ref: '#/components/responses/QueueKeyTaken' });
    expect(schemas.VersionConflictProblem.required).toContain('version');
  });

  test('then every problem body is exact: its code, status, title and type fixed, no other fields', () => {
    for (const [code, { status, title }] of Object.entries(PROBLEM_CODES)) {
      const name = `${code.split('_').map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}Problem`;
      const schema = schemas[name];
      expect(schema.additionalProperties).toBe(false);
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

  test('then the limits of the spec and decisions.md are in the request schemas', () => {
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

  test('then request bodies reject unknown fields and fill defaults, and answers fix their fields', () => {
    for (const name of ['QueueCreate', 'QueueSettings', 'QueuePermissionInput', 'UserChanges', 'IssueCreate', 'IssueUpdate', 'CommentCreate', 'WorklogCreate', 'Filters', 'Widget', 'DashboardInput']) {
      expect([name, schemas[name].additionalProperties]).toEqual([name, false]);
    }
    expect(schemas.IssueCreate.required).toEqual(['queue_id', 'title']);
    expect(schemas.IssueCreate.properties.priority.default).toBe('normal');
    expect(schemas.IssueUpdate.required).toBeUndefined();
    for (const name of ['Me', 'User', 'Queue', 'Status', 'Issue', 'IssueSummary', 'IssueDetails', 'Comment', 'Worklog', 'CommentPage', 'HistoryPage', 'Dashboard', 'StatisticsResult', 'QueuePermissions', 'QueuePermission']) {
      expect([name, schemas[name].additionalProperties]).toEqual([name, false]);
    }
  });

  test('then every $ref names a component that exists', () => {
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/(\w+)\/([\w-]+)"/g)];
    expect(refs.length).toBeGreaterThan(50);
    for (const [, kind, name] of refs) expect([kind, name, doc.components[kind!]?.[name!]]).toEqual([kind, name, expect.anything()]);
  });
});
