import { useEffect, type ReactNode } from 'react';
import { PAGES } from '../../src/pages';
import { AuthProvider, useAuth } from './auth';
import { SetupPage } from './pages/Setup';
import { SignInPage } from './pages/SignIn';
import { TokensPage } from './pages/Tokens';
import { NotFoundPage } from './pages/NotFound';
import { navigate, signInFor, useLocation } from './router';
import { SignedInLayout } from './ui';

/** A page for people signed in: anyone else goes to the sign-in page, and comes back here after. */
function SignedIn({ children }: { children: ReactNode }) {
  const { state } = useAuth();
  const { pathname, search } = useLocation();
  useEffect(() => {
    if (state.status === 'signed-out') navigate(signInFor(pathname + search), { replace: true });
  }, [state.status, pathname, search]);
  if (state.status !== 'signed-in') {
    return (
      <p className="loading" role="status">
        Loading…
      </p>
    );
  }
  return <SignedInLayout>{children}</SignedInLayout>;
}

/** The start page, until the later pages give it content of its own: the settings. */
function Home() {
  useEffect(() => navigate(PAGES.tokens, { replace: true }), []);
  return null;
}

function Page() {
  const { pathname } = useLocation();
  switch (pathname) {
    case PAGES.signIn:
      return <SignInPage />;
    case PAGES.setup:
      return <SetupPage />;
    case PAGES.tokens:
      return (
        <SignedIn>
          <TokensPage />
        </SignedIn>
      );
    case PAGES.home:
      return (
        <SignedIn>
          <Home />
        </SignedIn>
      );
    default:
      return <NotFoundPage />;
  }
}

export function App() {
  return (
    <AuthProvider>
      <Page />
    </AuthProvider>
  );
}
