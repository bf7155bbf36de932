import type { GrantsSource } from '@tracker/authz';
import type { PublicEventType } from '@tracker/contracts';
import type { LogWatcher } from './log-watcher';
import type { LoggedEvent, Position, Readable } from './model';
import type { StreamSlots } from './stream-slots';

/** What one feed read asks of the log. */
export interface PageQuery {
  workspaceId: number;
  /** The position to go on from (the log's pruned horizon when it is further on). */
  after: Position;
  /** null: every type. */
  types: PublicEventType[] | null;
  readable: Readable;
  limit: number;
  /** The most events looked at, readable or not. */
  scanMax: number;
}

/** A feed read, all from one snapshot of the log. */
export interface LogPage {
  /** The readable events after the start, oldest first, at most `limit`. */
  items: Array<{ seq: Position; type: PublicEventType; payload: string }>;
  /** The last event looked at (readable or not); null when none was after the start. */
  lastScanned: Position | null;
  /** How many were looked at: `scanMax` means there may be more. */
  scanned: number;
  /** The workspace's pruned horizon: its events up to it were deleted (0n: none). */
  prunedThrough: Position;
}

/** Port: the public event log (data-access/events.repository.ts). */
export interface EventLog {
  /**
   * Records events in one transaction, in the order given, each once: the ids of those
   * recorded now (an id recorded before is left alone). Within a workspace, positions are
   * given in commit order.
   */
  record(events: LoggedEvent[]): Promise<Set<string>>;
  page(query: PageQuery): Promise<LogPage>;
  /** Deletes up to `batch` events recorded before `before`, oldest first, moving each workspace's horizon; how many went. */
  prune(before: Date, batch: number): Promise<number>;
  /** When the oldest event kept was recorded (null: none). */
  oldestRecordedAt(): Promise<Date | null>;
  /**
   * The newest position of each workspace (its newest event, else its pruned horizon, else
   * 0n): one cheap index read per workspace, for the live streams' watcher.
   */
  newest(workspaceIds: number[]): Promise<Map<number, Position>>;
}

/** What the use cases of this service are given; wired once in app.ts (and in tests). */
export interface NotificationsDeps {
  log: EventLog;
  grants: GrantsSource;
  clock: () => Date;
  retention: { hours: number };
  feed: { scanMax: number };
  /** The live streams' bounds (config EVENT_STREAM*), the replica's watcher of the log and its slots. */
  stream: { maxSeconds: number; keepAliveMs: number; maxOpen: number; perUser: number };
  watcher: LogWatcher;
  streams: StreamSlots;
}
