import { PageHeading, useTitle } from '../ui';

// Placeholder while the page is built.
export function IssuePage({ issueKey }: { issueKey: string }) {
  useTitle('Issue');
  return <PageHeading>Issue {issueKey}</PageHeading>;
}
