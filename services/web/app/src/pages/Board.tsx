import { PageHeading, useTitle } from '../ui';

// Placeholder while the page is built.
export function BoardPage({ queueKey }: { queueKey: string }) {
  useTitle('Board');
  return <PageHeading>Board {queueKey}</PageHeading>;
}
