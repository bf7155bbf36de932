import { PageHeading, useTitle } from '../ui';

// Placeholder while the page is built.
export function AdminQueuesPage() {
  useTitle('Queues');
  return <PageHeading>Queues</PageHeading>;
}
