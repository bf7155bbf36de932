import { Fragment, useEffect, type ReactNode } from 'react';
import { PAGES, type PageName } from '../../src/pages';
import { AuthProvider, useAuth } from './auth';
import { AdminQueuesPage } from './pages/AdminQueues';
import { AdminUsersPage } from './pages/AdminUsers';
import { BoardPage } from './pages/Board';
import { DashboardPage } from './pages/Dashboard';
import { DashboardsPage } from './pages/Dashboards';
import { IssuePage } from './pages/Issue';
import { IssuesPage } from './pages/Issues';
import { NotFoundPage } from './pages/NotFound';
import { PermissionsPage } from './pages/Permissions';
import { SetupPage } from './pages/Setup';
import { SignInPage } from './pages/SignIn';
import { StatisticsPage } from './pages/Statistics';
import { TokensPage } from './pages/Tokens';
import { navigate, signInFor, useLocation, useRoute } from './router';
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

/** The start page is the issues. */
function Home() {
  useEffect(() => navigate(PAGES.issues, { replace: true }), []);
  return null;
}

/** Every signed-in page by its name; each is given the path's parameters. */
const SIGNED_IN: Record<Exclude<PageName, 'signIn' | 'setup'>, (params: Record<string, string>) => ReactNode> = {
  home: () => <Home />,
  tokens: () => <TokensPage />,
  issues: () => <IssuesPage />,
  issue: ({ key }) => <IssuePage issueKey={key!} />,
  board: ({ key }) => <BoardPage queueKey={key!} />,
  permissions: ({ key }) => <PermissionsPage queueKey={key!} />,
  dashboards: () => <DashboardsPage />,
  dashboard: ({ id }) => <DashboardPage dashboardId={id!} />,
  statistics: () => <StatisticsPage />,
  adminUsers: () => <AdminUsersPage />,
  adminQueues: () => <AdminQueuesPage />,
};

function Page() {
  const route = useRoute();
  if (!route) return <NotFoundPage />;
  if (route.page === 'signIn') return <SignInPage />;
  if (route.page === 'setup') return <SetupPage />;
  // Keyed by the address, so moving from one issue to another starts the page afresh.
  return (
    <SignedIn>
      <Fragment key={window.location.pathname}>{SIGNED_IN[route.page](route.params)}</Fragment>
    </SignedIn>
  );
}

export function App() {
  return (
    <AuthProvider>
      <Page />
    </AuthProvider>
  );
}
