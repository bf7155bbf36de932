import type { AccessClient } from '@tracker/authz';
import type { Store } from '../data-access/store';
import type { GrantsSource } from '@tracker/authz';

/** What the use cases of this service are given; wired once in app.ts (and in tests). */
export interface IssuesDeps {
  store: Store;
  grants: GrantsSource;
  /** The access service: queue registration and user lookups. */
  directory: Pick<AccessClient, 'registerQueue' | 'lookupUsers'>;
  clock: () => Date;
}
