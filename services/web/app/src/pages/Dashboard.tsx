import { PageHeading, useTitle } from '../ui';

// Placeholder while the page is built.
export function DashboardPage({ dashboardId }: { dashboardId: string }) {
  useTitle('Dashboard');
  return <PageHeading>Dashboard {dashboardId}</PageHeading>;
}
