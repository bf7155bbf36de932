/**
 * The pages of the web app: the paths the server answers with the app (index.html) and
 * the client's router draws. Shared by both, so a page the router knows is never a 404 at
 * the server, and a path no page has is one at both. Later pages are added here.
 */
export const PAGES = {
  home: '/',
  signIn: '/sign-in',
  setup: '/setup',
  tokens: '/settings/tokens',
} as const;

export type PagePath = (typeof PAGES)[keyof typeof PAGES];

const PAGE_PATHS: ReadonlySet<string> = new Set(Object.values(PAGES));

export const isPage = (path: string): path is PagePath => PAGE_PATHS.has(path);
