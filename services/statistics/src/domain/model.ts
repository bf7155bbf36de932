export type { RequestContext } from '@tracker/authz';

/** Whether the replica can answer, and how current it is (README: as_of). */
export interface ReplicaStatus {
  built: boolean;
  asOf: Date | null;
}

export interface CategoryCounts {
  open: number;
  progress: number;
  done: number;
  total: number;
}

export interface MinutesTotals {
  estimateMinutes: number;
  spentMinutes: number;
}

/** What the statistics query returns: every figure computed by the database. */
export interface StatisticsFigures {
  /** Matching issues before the cut to SEARCH_LIMIT. */
  matched: number;
  overall: CategoryCounts & MinutesTotals & { donePercent: number };
  queues: Array<CategoryCounts & MinutesTotals & { queueId: number; key: string }>;
  assignees: Array<CategoryCounts & MinutesTotals & { assigneeId: number | null }>;
}

export interface DashboardRecord {
  id: number;
  workspaceId: number;
  ownerId: number;
  name: string;
  widgets: unknown;
  queueIds: number[];
  createdAt: Date;
  updatedAt: Date;
}
