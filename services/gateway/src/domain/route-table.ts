import { API_OPERATIONS, AUTH_ROUTES } from '@tracker/contracts';

export type Upstream = 'access' | 'issues' | 'statistics' | 'agent';

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
  // The agent tool interface: one MCP endpoint (Streamable HTTP).
  [/^\/mcp$/, 'agent'],
];

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
