import { PageHeading, useTitle } from '../ui';

// Placeholder while the page is built.
export function StatisticsPage() {
  useTitle('Statistics');
  return <PageHeading>Statistics</PageHeading>;
}
