import { useEffect, useRef, type ReactNode } from 'react';
import { PAGES } from '../../src/pages';
import { useAuth } from './auth';
import { ProblemError } from './http';
import { cameByNavigation, followLink, navigate } from './router';
import { SignedOutError } from './session-token';

/** The tab's title: the page's, then the product's. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Tracker`;
  }, [title]);
}

/** The page's heading; after moving within the app it takes the focus, so a screen reader starts there. */
export function PageHeading({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (cameByNavigation()) ref.current?.focus();
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

/** What went wrong, in words, for any error a call can end with. */
export function messageOf(error: unknown): string {
  if (error instanceof SignedOutError) return 'Your session has ended. Sign in again.';
  if (error instanceof ProblemError) return error.problem.detail;
  return 'Something went wrong. Try again.';
}

/** A problem shown next to a form, read out as it appears. */
export function Alert({ id, children }: { id?: string; children: ReactNode }) {
  if (!children) return null;
  return (
    <p id={id} className="alert" role="alert">
      {children}
    </p>
  );
}

/** The frame of the pages for people not signed in (sign-in, setup). */
export function PublicLayout({ children }: { children: ReactNode }) {
  return (
    <>
      <header className="topbar">
        <span className="brand">Tracker</span>
      </header>
      <main id="main" className="narrow">
        {children}
      </main>
    </>
  );
}

/** The frame of every signed-in page: who is signed in, the settings, and Sign out. */
export function SignedInLayout({ children }: { children: ReactNode }) {
  const auth = useAuth();
  const session = auth.state.status === 'signed-in' ? auth.state.session : null;
  const signOut = async () => {
    await auth.signOut().catch(() => undefined);
    navigate(PAGES.signIn);
  };
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Tracker</span>
        <nav aria-label="Main">
          <a href={PAGES.tokens} aria-current={window.location.pathname === PAGES.tokens ? 'page' : undefined} onClick={(e) => followLink(e, PAGES.tokens)}>
            Personal tokens
          </a>
        </nav>
        <div className="who">
          {session && (
            <span className="person">
              {session.user.name} <span className="workspace">· {session.workspace.name}</span>
            </span>
          )}
          <button type="button" className="secondary" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" className="wide" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
