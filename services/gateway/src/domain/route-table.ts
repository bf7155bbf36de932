export type Upstream = 'access' | 'issues' | 'statistics' | 'agent';

/**
 * Which service owns a public path. Queue permissions belong to
 * access although they sit under /queues, so they are matched first.
 */
export const ROUTE_TABLE: ReadonlyArray<readonly [RegExp, Upstream]> = [
  [/^\/api\/v1\/me$/, 'access'],
  [/^\/api\/v1\/users(\/[^/]*)?$/, 'access'],
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

/** Path words that are part of a route, not an id or key. */
const LITERALS = new Set(['mcp', 'api', 'v1', 'me', 'users', 'queues', 'permissions', 'statuses', 'issues', 'search', 'comments', 'worklogs', 'history', 'links', 'subtasks', 'statistics', 'dashboards']);

/**
 * The metrics label of a path: ids and keys become `:param`
 * (`/api/v1/issues/WEB-1/comments` → `/api/v1/issues/:param/comments`); a path no
 * service owns is `unmatched`, so scanners cannot create series at will.
 */
export function routeTemplate(path: string): string {
  if (!upstreamFor(path)) return 'unmatched';
  return path
    .split('/')
    .map((segment, i) => (i === 0 || LITERALS.has(segment) ? segment : ':param'))
    .join('/');
}
