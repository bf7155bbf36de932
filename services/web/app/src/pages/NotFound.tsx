import { PAGES } from '../../../src/pages';
import { followLink } from '../router';
import { PageHeading, PublicLayout, useTitle } from '../ui';

export function NotFoundPage() {
  useTitle('Page not found');
  return (
    <PublicLayout>
      <PageHeading>Page not found</PageHeading>
      <p>There is no page at this address. It may have moved, or the link may be mistyped.</p>
      <p>
        <a href={PAGES.home} onClick={(e) => followLink(e, PAGES.home)}>
          Go to Tracker's start page
        </a>
      </p>
    </PublicLayout>
  );
}
