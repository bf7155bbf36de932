import { z } from 'zod';
import { API_OPERATIONS, ISSUE_READ_LIMITS, querySchemaOf, requestSchemaOf, responseSchemaOf, SEARCH_LIMIT, type ApiOperation } from '@tracker/contracts';
import { REFUSALS_WITHOUT_TOOL_CAUSE, SEARCH_DEFAULT_LIMIT, toolNamed, TOOLS, type Tool } from '../src/domain/tools';

/** The tool interface as published to agents (CHANGELOG 0.1.0): one tool per REST operation, but those of WITHOUT_TOOL. */
const TOOL_NAMES = [
  'get_me',
  'list_queues',
  'create_queue',
  'update_queue',
  'list_statuses',
  'list_users',
  'update_user',
  'invite_user',
  'issue_setup_link',
  'search_issues',
  'get_issue',
  'list_comments',
  'list_worklogs',
  'list_history',
  'list_links',
  'list_subtasks',
  'create_issue',
  'update_issue',
  'add_comment',
  'add_worklog',
  'get_statistics',
  'list_dashboards',
  'get_dashboard_statistics',
  'create_dashboard',
  'replace_dashboard',
  'get_queue_permissions',
  'list_queue_permission_history',
  'set_queue_permission',
  'revoke_queue_permission',
  'list_events',
];

/** Tools that only read; every other tool changes something. */
const READ_TOOLS = [
  'get_me', 'list_queues', 'list_statuses', 'list_users', 'search_issues', 'get_issue', 'get_statistics', 'list_dashboards', 'get_dashboard_statistics', 'get_queue_permissions',
  'list_comments', 'list_worklogs', 'list_history', 'list_links', 'list_subtasks', 'list_queue_permission_history', 'list_events',
];
/** The tools of the list pages (an issue's lists, a queue's permission history): their query parameters are arguments too. */
const PAGE_TOOLS = ['list_comments', 'list_worklogs', 'list_history', 'list_links', 'list_subtasks', 'list_queue_permission_history'];
/**
 * Tools that take access away (revoking a role, deactivating or demoting a user) or replace a user's way in (a new setup
 * link voids the earlier ones, may change the sign-in email at once, and sets a new password once used): an agent should confirm first.
 */
const DESTRUCTIVE_TOOLS = ['update_user', 'revoke_queue_permission', 'issue_setup_link'];

/**
 * The REST operations without a tool, and why. The document is served without a token and describes the API: nothing an
 * agent acts with. Personal tokens are for people: POST /tokens takes only a signed-in page's token (an agent holds a
 * personal token, which is 403 `session_required`), and an agent has no business seeing, making or revoking its owner's
 * credentials (a revoke would cut off the owner's other integrations). The live event stream answers for minutes, not
 * once: a tool call is one answer, and list_events (the feed with its cursor) gives an agent the same events.
 */
const WITHOUT_TOOL = [
  'getOpenApiDocument', 'listTokens', 'createToken', 'revokeToken', 'streamEvents',
  'createWebhook', 'listWebhooks', 'getWebhook', 'updateWebhook', 'deleteWebhook', 'listWebhookDeliveries', 'pingWebhook', 'retryWebhookDelivery',
];

/** Path parameters read from the template itself, not through the helper the tools use. */
const pathParamsOf = (operation: ApiOperation) => (operation.path.match(/\{\w+\}/g) ?? []).map((p) => p.slice(1, -1));
const bodyFieldsOf = (operation: ApiOperation) => Object.keys(requestSchemaOf(operation)?.shape ?? {});
const queryParamsOf = (operation: ApiOperation) => Object.keys(querySchemaOf(operation)?.shape ?? {});
const toolOf = (name: string): Tool => toolNamed(name)!;

type JsonSchema = { type?: string; properties?: Record<string, JsonSchema & { description?: unknown }>; required?: string[]; additionalProperties?: unknown; default?: unknown };
const inputOf = (tool: Tool) => tool.definition.inputSchema as JsonSchema;
const outputOf = (tool: Tool) => tool.definition.outputSchema as JsonSchema;

describe('the tool table', () => {
  test("then it has exactly the 30 tools of the published interface (the 25 core operations but the 3 of personal tokens, the 6 list pages, a dashboard's statistics and the event feed), each once", () => {
    expect(TOOLS.map((tool) => tool.name).sort()).toEqual([...TOOL_NAMES].sort());
    expect(TOOLS.map((tool) => tool.definition.name)).toEqual(TOOLS.map((tool) => tool.name));
  });

  test('then every REST operation but the public document, the personal tokens\', the webhooks\' and the live stream has exactly one tool, and those none', () => {
    const covered = TOOLS.map((tool) => tool.operation.operationId).sort();
    const withTool = API_OPERATIONS.filter((operation) => !WITHOUT_TOOL.includes(operation.operationId)).map((operation) => operation.operationId).sort();
    expect(covered).toEqual(withTool);
    // Exactly the public document, the operations of /api/v1/tokens and /api/v1/webhooks, and the stream are left out (tools.ts says why).
    expect(API_OPERATIONS.filter((operation) => operation.public).map((operation) => operation.operationId)).toEqual(['getOpenApiDocument']);
    const credentials = API_OPERATIONS.filter((operation) => /^\/api\/v1\/(tokens|webhooks)/.test(operation.path)).map((operation) => operation.operationId);
    const streams = API_OPERATIONS.filter((operation) => operation.success.eventStream).map((operation) => operation.operationId);
    expect(['getOpenApiDocument', ...credentials, ...streams].sort()).toEqual([...WITHOUT_TOOL].sort());
    expect(TOOLS.filter((tool) => /token|webhook/.test(tool.name))).toEqual([]);
  });

  test('then a tool carries its operation exactly as libs/contracts defines it (not a copy that could drift)', () => {
    for (const tool of TOOLS) {
      expect(API_OPERATIONS).toContain(tool.operation);
    }
  });

  test('when a name is not a tool, then toolNamed finds nothing', () => {
    expect(toolNamed('delete_everything')).toBeUndefined();
    expect(toolNamed('getMe')).toBeUndefined();
  });
});

/** The tools whose REST twin is a POST that writes and replays a repeated key: they take `idempotency_key`. */
const CREATING_TOOLS = ['create_queue', 'create_issue', 'add_comment', 'add_worklog', 'create_dashboard'];
/** POSTs that write without a key to replay (the access service takes none): no `idempotency_key`, which would promise what nothing keeps. */
const ACCOUNT_TOOLS = ['invite_user', 'issue_setup_link'];

describe('tool arguments', () => {
  test('then exactly the creating tools take idempotency_key, an optional string of 1 to 255 visible characters; the account tools, POSTs too, do not', () => {
    expect(TOOLS.filter((tool) => tool.idempotent).map((tool) => tool.name).sort()).toEqual([...CREATING_TOOLS].sort());
    for (const name of ACCOUNT_TOOLS) {
      expect([name, toolOf(name).operation.method, 'idempotency_key' in toolOf(name).args.shape]).toEqual([name, 'post', false]);
    }
    for (const name of CREATING_TOOLS) {
      const args = toolOf(name).args;
      expect(args.shape.idempotency_key!.safeParse(undefined).success).toBe(true);
      expect(args.shape.idempotency_key!.safeParse('k'.repeat(255)).success).toBe(true);
      for (const bad of ['', 'k'.repeat(256), 'with space', 'é']) expect(args.shape.idempotency_key!.safeParse(bad).success).toBe(false);
    }
  });

  test.each(TOOL_NAMES)('when %s is listed, then its arguments are exactly its path parameters, its query parameters and its REST body fields', (name) => {
    const tool = toolOf(name);
    const own = name === 'search_issues' ? ['limit'] : CREATING_TOOLS.includes(name) ? ['idempotency_key'] : [];
    const expected = [...pathParamsOf(tool.operation), ...queryParamsOf(tool.operation), ...bodyFieldsOf(tool.operation), ...own].sort();
    expect(Object.keys(inputOf(tool).properties ?? {}).sort()).toEqual(expected);
    expect(Object.keys(tool.args.shape).sort()).toEqual(expected);
    expect(tool.pathParams).toEqual(pathParamsOf(tool.operation));
  });

  test.each(TOOL_NAMES)('when %s is listed, then its input schema is a closed object whose every property is described', (name) => {
    const schema = inputOf(toolOf(name));
    expect(schema.type).toBe('object');
    expect(schema.additionalProperties).toBe(false);
    for (const [property, definition] of Object.entries(schema.properties ?? {})) {
      // An agent has only the description to go by: an undescribed argument is guessed at.
      expect([property, typeof definition.description, String(definition.description).length > 0]).toEqual([property, 'string', true]);
    }
  });

  test.each(TOOL_NAMES)('when %s is listed, then each of its path parameters is a required argument', (name) => {
    const tool = toolOf(name);
    const required = inputOf(tool).required ?? [];
    for (const param of pathParamsOf(tool.operation)) expect([param, required.includes(param)]).toEqual([param, true]);
  });

  test('then no body field shares its name with a path parameter (one would silently replace the other)', () => {
    for (const tool of TOOLS) {
      const clash = bodyFieldsOf(tool.operation).filter((field) => pathParamsOf(tool.operation).includes(field));
      expect([tool.name, clash]).toEqual([tool.name, []]);
    }
  });

  test('then the list page tools take after_id and limit (1 to 100, 50 by default) as their REST query does, optional', () => {
    for (const name of PAGE_TOOLS) {
      const tool = toolOf(name);
      expect([name, tool.queryParams]).toEqual([name, ['after_id', 'limit']]);
      const { after_id: afterId, limit } = inputOf(tool).properties!;
      expect([name, afterId]).toEqual([name, expect.objectContaining({ type: 'integer', minimum: 0, default: 0 })]);
      expect([name, limit]).toEqual([name, expect.objectContaining({ type: 'integer', minimum: 1, maximum: ISSUE_READ_LIMITS.pageMax, default: 50 })]);
      expect([name, inputOf(tool).required]).toEqual([name, pathParamsOf(tool.operation)]);
    }
    expect(TOOLS.filter((tool) => tool.queryParams.length > 0).map((tool) => tool.name).sort()).toEqual([...PAGE_TOOLS, 'list_events'].sort());
  });

  test('then list_events takes the feed`s query: after (a cursor), types and limit (1 to 500, 100 by default), all optional', () => {
    const tool = toolOf('list_events');
    expect(tool.queryParams).toEqual(['after', 'types', 'limit']);
    const { after, types, limit } = inputOf(tool).properties!;
    expect(after).toEqual(expect.objectContaining({ type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' }));
    expect(types).toEqual(expect.objectContaining({ type: 'string', maxLength: 500 }));
    expect(limit).toEqual(expect.objectContaining({ type: 'integer', minimum: 1, maximum: 500, default: 100 }));
    expect(inputOf(tool).required ?? []).toEqual([]);
    expect(tool.answer).toBe('object');
    expect(tool.definition.description).toContain('410 `cursor_expired`');
  });

  test('then search_issues alone takes a limit of its own, optional, 1 to 2000 with 50 by default', () => {
    expect(TOOLS.filter((tool) => 'limit' in (inputOf(tool).properties ?? {}) && tool.queryParams.length === 0).map((tool) => tool.name)).toEqual(['search_issues']);
    const search = toolOf('search_issues');
    const { description: _description, ...limit } = inputOf(search).properties!.limit!;
    expect(limit).toEqual({ type: 'integer', minimum: 1, maximum: SEARCH_LIMIT, default: SEARCH_DEFAULT_LIMIT, examples: [20] });
    expect(SEARCH_DEFAULT_LIMIT).toBe(50);
    expect(inputOf(search).required ?? []).not.toContain('limit');
    expect(search.args.parse({})).toEqual({ limit: 50, mine: false, overdue: false });
  });
});

describe('tool answers', () => {
  test.each(TOOL_NAMES)('when %s is listed, then its output schema is an object', (name) => {
    expect(outputOf(toolOf(name)).type).toBe('object');
  });

  test('then a list operation answers its list wrapped as {items}, and search_issues as {items, total, truncated}', () => {
    for (const tool of TOOLS) {
      const output = outputOf(tool);
      const expected =
        tool.name === 'search_issues'
          ? { answer: 'search', properties: ['items', 'total', 'truncated'] }
          : tool.operation.success.list
            ? { answer: 'list', properties: ['items'] }
            : { answer: 'object', properties: Object.keys((responseSchemaOf(tool.operation) as z.ZodObject).shape).sort() };
      expect([tool.name, tool.answer, Object.keys(output.properties ?? {}).sort()]).toEqual([tool.name, expected.answer, expected.properties]);
      expect([tool.name, [...(output.required ?? [])].sort()]).toEqual([tool.name, expected.properties]);
      if (tool.answer !== 'object') expect([tool.name, output.properties!.items!.type]).toEqual([tool.name, 'array']);
    }
    expect(TOOLS.filter((tool) => tool.answer === 'list').map((tool) => tool.name).sort()).toEqual(['list_dashboards', 'list_queues', 'list_statuses', 'list_users']);
  });

  test('then search_issues describes total and truncated for the agent', () => {
    // Output schemas carry no descriptions (tools/list size); the tool's description says what the two mean.
    const { total, truncated } = outputOf(toolOf('search_issues')).properties!;
    expect(total).toEqual({ type: 'integer', minimum: 0, maximum: SEARCH_LIMIT });
    expect(truncated).toEqual({ type: 'boolean' });
    const { description } = toolOf('search_issues').definition;
    expect(description).toContain(`\`total\` (matches, counted up to ${SEARCH_LIMIT})`);
    expect(description).toContain('`truncated` (whether more matched than came back)');
  });
});

describe('tool annotations', () => {
  test.each(TOOL_NAMES)('when %s is listed, then its hints say whether it reads, destroys or repeats safely, and that it stays in Tracker', (name) => {
    const tool = toolOf(name);
    const expected = READ_TOOLS.includes(name)
      ? { title: tool.definition.title, readOnlyHint: true, openWorldHint: false }
      : {
          title: tool.definition.title,
          readOnlyHint: false,
          destructiveHint: DESTRUCTIVE_TOOLS.includes(name),
          // PUT and DELETE set a state: sending them again changes nothing more.
          idempotentHint: tool.operation.method === 'put' || tool.operation.method === 'delete',
          openWorldHint: false,
        };
    expect(tool.definition.annotations).toEqual(expected);
    expect(tool.definition.title.length).toBeGreaterThan(0);
  });

  test('then the read tools are exactly the get_*, list_* tools and search_issues', () => {
    const read = TOOLS.filter((tool) => tool.definition.annotations.readOnlyHint === true).map((tool) => tool.name);
    expect(read.sort()).toEqual(TOOL_NAMES.filter((name) => /^(get|list)_/.test(name) || name === 'search_issues').sort());
    // Reading must not write: every read tool is a GET, or one of the POSTs that only query.
    for (const name of read) {
      const { method, operationId } = toolOf(name).operation;
      expect([name, method === 'get' || ['searchIssues', 'getStatistics'].includes(operationId)]).toEqual([name, true]);
    }
  });
});

describe('tool descriptions', () => {
  test.each(TOOL_NAMES)('when %s is listed, then its description names the rights its operation needs', (name) => {
    const tool = toolOf(name);
    expect(tool.definition.description).toContain(`Rights: ${tool.operation.rights}.`);
  });

  test.each(TOOL_NAMES)('when %s is listed, then its description explains every refusal its operation documents', (name) => {
    const tool = toolOf(name);
    const codes = [...(tool.operation.errors ?? []), ...(tool.operation.service === 'statistics' ? ['statistics_unavailable'] : []), 'validation_failed'].filter(
      (code) => !REFUSALS_WITHOUT_TOOL_CAUSE.includes(code as never),
    );
    for (const code of codes) expect([code, tool.definition.description.includes(`\`${code}\``)]).toEqual([code, true]);
  });

  test('when update_issue is listed, then its description says a 409 version_conflict means: read the issue again, then reconsider', () => {
    const { description } = toolOf('update_issue').definition;
    expect(description).toContain(
      '409 `version_conflict`: the issue changed since you read it (the problem carries the current `version`): read it again with get_issue, then reconsider the change rather than resending it',
    );
    expect(description).toContain('`version`');
  });
});

describe('the size of tools/list', () => {
  const nodes = (schema: unknown): Array<Record<string, unknown>> =>
    !schema || typeof schema !== 'object' ? [] : [schema as Record<string, unknown>, ...Object.values(schema).flatMap(nodes)];

  test('then no schema spells out a format as a pattern too (it is read into the agent\'s context), and formats are kept', () => {
    const schemas = TOOLS.flatMap((tool) => [tool.definition.inputSchema, tool.definition.outputSchema]).flatMap(nodes);
    expect(schemas.filter((node) => 'format' in node && 'pattern' in node)).toEqual([]);
    expect(schemas.filter((node) => node.format === 'date-time').length).toBeGreaterThan(20);
    // About 90.5 KB: input schemas with every field described (30.5 KB), output schemas without descriptions (40 KB;
    // the 6 list page tools repeat their item schemas, get_dashboard_statistics get_statistics's), the tools' own
    // descriptions and annotations. invite_user and issue_setup_link added 4 KB, list_events 2.8 KB (its answer
    // outlined: the nine kinds of event in full would have been 16 KB more).
    expect(JSON.stringify(TOOLS.map((tool) => tool.definition)).length).toBeLessThan(94_000);
  });
});
