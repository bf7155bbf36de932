import { PageHeading, useTitle } from '../ui';

// Placeholder while the page is built.
export function AdminUsersPage() {
  useTitle('Users');
  return <PageHeading>Users</PageHeading>;
}
