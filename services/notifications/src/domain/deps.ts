import type { GrantsSource } from '@tracker/authz';
import type { LogWatcher } from './log-watcher';
import type { DeliveriesRepository, EventLog, WebhookSecrets, WebhooksRepository, WebhookTargets } from './ports';
import type { StreamSlots } from './stream-slots';


/** What the use cases of this service are given; wired once in app.ts (and in tests). */
export interface NotificationsDeps {
  log: EventLog;
  grants: GrantsSource;
  clock: () => Date;
  retention: { hours: number };
  feed: { scanMax: number };
  webhooks: WebhooksRepository;
  deliveries: DeliveriesRepository;
  targets: WebhookTargets;
  secrets: WebhookSecrets;
  newId: () => string;
  /** The live streams' bounds (config EVENT_STREAM*), the replica's watcher of the log and its slots. */
  stream: { maxSeconds: number; keepAliveMs: number; maxOpen: number; perUser: number };
  watcher: LogWatcher;
  streams: StreamSlots;
}
