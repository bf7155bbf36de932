import type { GrantsSource } from '@tracker/authz';
import type { DashboardRecord, ReplicaStatus, StatisticsFigures } from './model';
import type { SearchCriteria } from '@tracker/contracts';

/** Port: reads of the replica. */
export interface ReplicaReader {
  status(): Promise<ReplicaStatus>;
  /** Which of `ids` (all when absent) are queues of the workspace in the replica. */
  queueIdsInWorkspace(workspaceId: number, ids?: number[]): Promise<number[]>;
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
   * `readable: null` means every queue of the workspace in the replica (a workspace admin).
   */
  listVisible(workspaceId: number, readable: number[] | null): Promise<DashboardRecord[]>;
  find(workspaceId: number, id: number): Promise<DashboardRecord | null>;
  create(dashboard: NewDashboard): Promise<DashboardRecord>;
  replace(id: number, changes: Pick<NewDashboard, 'name' | 'widgets' | 'queueIds'>, at: Date): Promise<DashboardRecord>;
}

/** What the use cases of this service are given; wired once in app.ts (and in tests). */
export interface StatisticsDeps {
  replica: ReplicaReader;
  dashboards: DashboardsRepository;
  grants: GrantsSource;
  clock: () => Date;
}
