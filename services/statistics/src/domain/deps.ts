import type { AccessClient, GrantsSource } from '@tracker/authz';
import type { Store } from './ports';


/** What the use cases of this service are given; wired once in app.ts (and in tests). */
export interface StatisticsDeps {
  store: Store;
  grants: GrantsSource;
  /** The access service: which queues a workspace has, current at once. */
  directory: Pick<AccessClient, 'lookupQueues'>;
  clock: () => Date;
}
