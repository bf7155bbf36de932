/**
 * The pages of the web app: the paths the server answers with the app (index.html) and
 * the client's router draws. Shared by both, so a page the router knows is never a 404 at
 * the server, and a path no page has is one at both. A `:name` segment is a parameter
 * (an issue's key, a queue's key, a dashboard's id), matched as one path segment.
 */
export const PAGES = {
  home: '/',
  signIn: '/sign-in',
  setup: '/setup',
  tokens: '/settings/tokens',
  issues: '/issues',
  issue: '/issues/:key',
  board: '/queues/:key',
  permissions: '/queues/:key/permissions',
  dashboards: '/dashboards',
  dashboard: '/dashboards/:id',
  statistics: '/statistics',
  adminUsers: '/admin/users',
  adminQueues: '/admin/queues',
} as const;

export type PageName = keyof typeof PAGES;

export interface Route {
  page: PageName;
  params: Record<string, string>;
}

/** A parameter's segment: no slash, at most 100 characters (longer is no page: a 404). */
const SEGMENT = '([^/]{1,100})';
/** An `:id` is a record's number (a dashboard's): `/dashboards/abc` is no page. */
const PARAMETER_SEGMENTS: Record<string, string> = { id: '([1-9][0-9]{0,15})' };

const MATCHERS = (Object.entries(PAGES) as Array<[PageName, string]>).map(([page, pattern]) => {
  const names: string[] = [];
  const source = pattern
    .split('/')
    .map((part) => {
      if (!part.startsWith(':')) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(part.slice(1));
      return PARAMETER_SEGMENTS[part.slice(1)] ?? SEGMENT;
    })
    .join('/');
  return { page, names, regex: new RegExp(`^${source}$`) };
});

/** The page a path shows, with its parameters (decoded), or null: no page of the app. */
export function matchPage(path: string): Route | null {
  for (const { page, names, regex } of MATCHERS) {
    const match = regex.exec(path);
    if (!match) continue;
    const params: Record<string, string> = {};
    try {
      names.forEach((name, index) => (params[name] = decodeURIComponent(match[index + 1]!)));
    } catch {
      return null; // a malformed escape names no page
    }
    return { page, params };
  }
  return null;
}

export const isPage = (path: string): boolean => matchPage(path) !== null;

/** The path of a page, its parameters filled in (encoded). */
export function pathTo(page: PageName, params: Record<string, string | number> = {}): string {
  return PAGES[page].replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(params[name] ?? '')));
}
