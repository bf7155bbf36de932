import type { IdempotentRequests, Once } from '@tracker/kit';
import type { AccessClient, GrantsSource } from '@tracker/authz';
import type { DashboardRecord, ReplicaStatus, StatisticsFigures } from './model';
import type { SearchCriteria } from '@tracker/contracts';

/** Port: reads of the replica. */
export interface ReplicaReader {
  status(): Promise<ReplicaStatus>;
  /** Which of `ids` are queues of the workspace in the replica (a new queue only once its event arrived). */
  queueIdsInWorkspace(workspaceId: number, ids: number[]): Promise<number[]>;
  figures(criteria: SearchCriteria): Promise<StatisticsFigures>;
}

export interface NewDashboard {
  workspaceId: number;
  ownerId: number;
  name: string;
  widgets: unknown[];
  queueIds: number[];
}

/** Port: this service's own dashboards. */
export interface DashboardsRepository {
  /**
   * Dashboards of the workspace whose queue ids are all within `readable`, oldest first;
   * `readable: null` means every dashboard of the workspace (a workspace admin).
   */
  listVisible(workspaceId: number, readable: number[] | null): Promise<DashboardRecord[]>;
  find(workspaceId: number, id: number): Promise<DashboardRecord | null>;
  /** Makes other transactions creating in this workspace wait until this one ends. */
  lockWorkspace(workspaceId: number): Promise<void>;
  countInWorkspace(workspaceId: number): Promise<number>;
  insert(dashboard: NewDashboard): Promise<DashboardRecord>;
  replace(id: number, changes: Pick<NewDashboard, 'name' | 'widgets' | 'queueIds'>, at: Date): Promise<DashboardRecord>;
}

/** The dashboards over the pool, and the same repository inside one transaction. */
export interface DashboardsStore extends DashboardsRepository {
  /** One transaction; with `once` (an Idempotency-Key), claimed and answered inside it. */
  transaction<T>(work: (tx: DashboardsRepository) => Promise<T>, once?: Once<T>): Promise<T>;
}

/** What the use cases of this service are given; wired once in app.ts (and in tests). */
export interface StatisticsDeps {
  replica: ReplicaReader;
  dashboards: DashboardsStore;
  /** Idempotency-Keys of POST /dashboards (libs/kit idempotency.ts). */
  idempotentRequests: IdempotentRequests;
  grants: GrantsSource;
  /** The access service: which queues a workspace has, current at once. */
  directory: Pick<AccessClient, 'lookupQueues'>;
  clock: () => Date;
}
