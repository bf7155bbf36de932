import type { Pool } from 'pg';
import type { Store } from '../domain/ports';
import { deliveriesRepository } from './deliveries.repository';
import { eventsRepository } from './events.repository';
import { webhooksRepository } from './webhooks.repository';

/**
 * The repositories over the pool. Each runs its own transactions (`inTransaction` of the
 * kit), so there is no store-wide `transaction`: recording an event queues its deliveries
 * in the same statement (events.repository.ts).
 */
export function createStore(pool: Pool): Store {
  return {
    events: eventsRepository(pool),
    webhooks: webhooksRepository(pool),
    deliveries: deliveriesRepository(pool),
  };
}
