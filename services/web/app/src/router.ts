import { useSyncExternalStore, type MouseEvent } from 'react';
import { isPage, matchPage, PAGES, type Route } from '../../src/pages';

/**
 * A small router over the History API: the path decides the page (../../src/pages.ts, the
 * same list the server answers). Moving between pages keeps the page's memory (the
 * session token), which a full load would lose.
 */
const listeners = new Set<() => void>();
let moved = false;

function notify(): void {
  for (const listener of listeners) listener();
}

if (typeof window !== 'undefined') {
  window.addEventListener('popstate', () => {
    moved = true;
    notify();
  });
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  moved = true;
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.scrollTo(0, 0);
  notify();
}

/** Whether the page shown came from moving within the app (its heading then takes the focus), not from a load. */
export const cameByNavigation = () => moved;

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

/** The path and query shown (the fragment is not part of the route). */
export function useLocation(): { pathname: string; search: string } {
  const href = useSyncExternalStore(subscribe, () => window.location.pathname + window.location.search);
  const url = new URL(href, window.location.origin);
  return { pathname: url.pathname, search: url.search };
}

/** The page the address shows, with its parameters; null when it is no page of the app. */
export function useRoute(): Route | null {
  const { pathname } = useLocation();
  return matchPage(pathname);
}

/** Sets the address's query (the view: filters, search) without a new history entry or a scroll. */
export function replaceQuery(params: URLSearchParams): void {
  const query = params.toString();
  window.history.replaceState(null, '', window.location.pathname + (query ? `?${query}` : ''));
  notify();
}

/** A click on a same-app link moves without a load; a modified click (new tab) is the browser's. */
export function followLink(event: MouseEvent<HTMLAnchorElement>, to: string): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(to);
}

/**
 * Where to go after signing in: the `next` the sign-in page was sent with, if it is a
 * signed-in page of this app (a path, never another origin), else the start page.
 */
export function safeNext(search: string): string {
  const next = new URLSearchParams(search).get('next');
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return PAGES.home;
  try {
    const url = new URL(next, window.location.origin);
    if (url.origin !== window.location.origin || !isPage(url.pathname) || url.pathname === PAGES.signIn || url.pathname === PAGES.setup) return PAGES.home;
    return url.pathname + url.search;
  } catch {
    return PAGES.home;
  }
}

/** The sign-in page, told to come back to `path` afterwards. */
export const signInFor = (path: string) => (path === PAGES.home ? PAGES.signIn : `${PAGES.signIn}?next=${encodeURIComponent(path)}`);
