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
  /**
   * Creates the dashboard unless its workspace already holds `max` of them (null then).
   * Creates in one workspace are serialized, so concurrent ones never pass `max` together.
   */
  create(dashboard: NewDashboard, max: number, once?: Once<DashboardRecord>): Promise<DashboardRecord | null>;
  replace(id: number, changes: Pick<NewDashboard, 'name' | 'widgets' | 'queueIds'>, at: Date): Promise<DashboardRecord>;
}

/** What the use cases of this service are given; wired once in app.ts (and in tests). */
export interface StatisticsDeps {
  replica: ReplicaReader;
  dashboards: DashboardsRepository;
  /** Idempotency-Keys of POST /dashboards (libs/kit idempotency.ts). */
  idempotentRequests: IdempotentRequests;
  grants: GrantsSource;
  /** The access service: which queues a workspace has, current at once. */
  directory: Pick<AccessClient, 'lookupQueues'>;
  clock: () => Date;
}
