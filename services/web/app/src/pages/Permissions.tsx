import { PageHeading, useTitle } from '../ui';

// Placeholder while the page is built.
export function PermissionsPage({ queueKey }: { queueKey: string }) {
  useTitle('Permissions');
  return <PageHeading>Permissions {queueKey}</PageHeading>;
}
