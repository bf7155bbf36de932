import { PageHeading, useTitle } from '../ui';

// Placeholder while the page is built.
export function IssuesPage() {
  useTitle('Issues');
  return <PageHeading>Issues</PageHeading>;
}
