import type { PublicEventType } from '@tracker/contracts';
import type { AttemptOutcome, AttemptRecord, ClaimedDelivery, DeliveryRecord, DeliveryStatus, FeedItem, LoggedEvent, Position, Readable, WebhookRecord } from './model';
import type { AttemptResult } from './webhook.rules';

/**
 * The ports of the use cases and the jobs: what they need from storage, from the network
 * and from cryptography, declared here so the domain depends on no implementation;
 * src/data-access implements them (the repositories over the pool, built by data-access/store.ts, and the webhook sender).
 */

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
  /** The readable events after the start, oldest first, at most `limit`: as the feed shows them. */
  items: FeedItem[];
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
   * given in commit order. Each event recorded now is queued, in the same transaction, for
   * the workspace's active webhooks that select it.
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

/** A new webhook or the changes to one, in the domain's terms. */
export interface WebhookFields {
  url: string;
  events: string[];
  queueIds: number[] | null;
  description: string | null;
  active: boolean;
}

/** Port: the webhooks of each workspace (data-access/webhooks.repository.ts). */
export interface WebhooksRepository {
  /** The new webhook; null when the workspace already holds `max`. */
  create(input: { workspaceId: number; createdBy: number; fields: Omit<WebhookFields, 'active'>; secretSealed: string; max: number }): Promise<WebhookRecord | null>;
  list(workspaceId: number): Promise<WebhookRecord[]>;
  get(workspaceId: number, id: number): Promise<WebhookRecord | null>;
  /** Changes the fields given; `active: true` clears the reason it was disabled, `active: false` sets `disabledReason`. */
  update(workspaceId: number, id: number, changes: Partial<WebhookFields> & { disabledReason?: string | null }): Promise<WebhookRecord | null>;
  /** Deletes the webhook with its deliveries; false when there was none. */
  delete(workspaceId: number, id: number): Promise<boolean>;
}

/** Port: the delivery queue and log (data-access/deliveries.repository.ts). Events are queued for the matching webhooks when the log records them. */
export interface DeliveriesRepository {
  /** A page of a webhook's deliveries, newest first, each with its newest `attemptsShown` attempts. */
  page(query: { webhookId: number; status: DeliveryStatus | null; beforeId: number | null; limit: number; attemptsShown: number }): Promise<DeliveryRecord[]>;
  /** Queues a ping: one attempt, due now. */
  queueOnce(input: { webhookId: number; eventId: string; eventType: string; payload: string }, attemptsShown: number): Promise<DeliveryRecord>;
  /** Makes a delivery due now: a pending one keeps its schedule, a finished one gets one attempt more. null: no such delivery of the webhook. */
  retryNow(webhookId: number, deliveryId: number, attemptsShown: number): Promise<DeliveryRecord | null>;
  /**
   * Claims due deliveries for one attempt each, until `leaseMs` from now: at most `limit` in
   * all and at most `perEndpoint` in flight per webhook, across every replica. Only a
   * webhook's active deliveries are claimed, and its pings and manual retries while inactive.
   */
  claim(query: { limit: number; perEndpoint: number; leaseMs: number }): Promise<ClaimedDelivery[]>;
  /** Records an attempt and its outcome (switching the webhook off when the outcome says so), releasing the claim. */
  finish(delivery: ClaimedDelivery, attempt: AttemptRecord, outcome: AttemptOutcome): Promise<void>;
  /** Deletes up to `batch` finished deliveries made before `before`; how many went. */
  prune(before: Date, batch: number): Promise<number>;
  /** The deliveries due and not in flight, and how long the oldest of them has waited (seconds; 0 when none). */
  backlog(): Promise<{ due: number; oldestDueSeconds: number }>;
}

/** Port: where a webhook may send (data-access/webhook-sender.ts): the reason a URL is refused, or null. */
export interface WebhookTargets {
  checkUrl(url: string): Promise<string | null>;
}

/** Port: the webhooks' signing secrets: made, and sealed for the store (never kept in the clear). */
export interface WebhookSecrets {
  generate(): string;
  seal(secret: string): string;
  open(sealed: string): string;
}

/**
 * The repositories over the pool (data-access/store.ts). Each runs its own transactions:
 * recording an event queues its deliveries in the same statement, so no use case holds a
 * transaction across repositories.
 */
export interface Store {
  events: EventLog;
  webhooks: WebhooksRepository;
  deliveries: DeliveriesRepository;
}

/** Port: sends one signed POST (data-access/webhook-sender.ts); never throws. */
export interface WebhookPoster {
  send(request: { url: string; headers: Record<string, string>; body: string }): Promise<AttemptResult & { durationMs: number }>;
}
