import { API_OPERATIONS, AUTH_ROUTES } from '@tracker/contracts';

export type Upstream = 'access' | 'issues' | 'statistics' | 'agent' | 'notifications';

/**
 * Which service owns a public path. Queue permissions belong to
 * access although they sit under /queues, so they are matched first.
 */
export const ROUTE_TABLE: ReadonlyArray<readonly [RegExp, Upstream]> = [
  [/^\/api\/v1\/me$/, 'access'],
  [/^\/api\/v1\/users(\/[^/]*|\/[^/]+\/setup-link)?$/, 'access'],
  [/^\/api\/v1\/tokens(\/[^/]*)?$/, 'access'],
  [/^\/api\/v1\/queues\/[^/]+\/permissions(\/[^/]*)?$/, 'access'],
  [/^\/api\/v1\/queues(\/.*)?$/, 'issues'],
  [/^\/api\/v1\/statuses$/, 'issues'],
  [/^\/api\/v1\/issues(\/.*)?$/, 'issues'],
  [/^\/api\/v1\/statistics$/, 'statistics'],
  [/^\/api\/v1\/dashboards(\/[^/]*|\/[^/]+\/statistics)?$/, 'statistics'],
  // The public event log: the feed now, the live stream and the webhooks (reserved, RESERVED_ROUTES) next.
  [/^\/api\/v1\/events(\/.*)?$/, 'notifications'],
  [/^\/api\/v1\/webhooks(\/.*)?$/, 'notifications'],
  // The agent tool interface: one MCP endpoint (Streamable HTTP).
  [/^\/mcp$/, 'agent'],
];

/**
 * Routes of the table that serve no documented operation yet: reserved for operations on
 * their way (the webhooks of the notifications service), so that no other service claims
 * the path meanwhile. Their service answers 404 until then.
 */
export const RESERVED_ROUTES: ReadonlyArray<RegExp> = [ROUTE_TABLE.find(([pattern]) => pattern.test('/api/v1/webhooks'))![0]];

export function upstreamFor(path: string): Upstream | null {
  for (const [pattern, upstream] of ROUTE_TABLE) if (pattern.test(path)) return upstream;
  return null;
}

/**
 * The route labels of the metrics: the public route templates (the OpenAPI document's
 * paths, `/api/v1/issues/{key}/comments`) and `/mcp`, a fixed and finite set, most literal
 * first so that `/api/v1/issues/search` is not taken for `/api/v1/issues/{key}`.
 */
const TEMPLATES: ReadonlyArray<readonly [RegExp, string]> = [...new Set([...API_OPERATIONS.map((operation) => operation.path), '/mcp', ...AUTH_ROUTES.map((route) => route.path)])]
  .sort((a, b) => parameterCount(a) - parameterCount(b))
  .map((template) => [new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`), template] as const);

function parameterCount(template: string): number {
  return template.split('{').length - 1;
}

/** The label of an answer given before the caller was authenticated, whatever its path. */
export const UNAUTHENTICATED_ROUTE = 'unauthenticated';

/**
 * The metrics label of an authenticated caller's path: its route template, or `unmatched`
 * for a path no public route has, so no path a client makes up becomes a series.
 */
export function routeTemplate(path: string): string {
  for (const [pattern, template] of TEMPLATES) if (pattern.test(path)) return template;
  return 'unmatched';
}
