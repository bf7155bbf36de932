import { PageHeading, useTitle } from '../ui';

// Placeholder while the page is built.
export function DashboardsPage() {
  useTitle('Dashboards');
  return <PageHeading>Dashboards</PageHeading>;
}
