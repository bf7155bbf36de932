import type { AccessClient, GrantsSource } from '@tracker/authz';
import type { Store } from './ports';


/** What the use cases of this service are given; wired once in app.ts (and in tests). */
export interface IssuesDeps {
  store: Store;
  grants: GrantsSource;
  /** The access service: queue registration and user lookups. */
  directory: Pick<AccessClient, 'registerQueue' | 'lookupUsers'>;
  clock: () => Date;
}
