import type { ServiceName } from '@tracker/contracts';
import type { ServiceClient } from '@tracker/kit';

/**
 * The ports of the tool calls: what they need from the services they call and from this
 * process's memory, declared here so the domain depends on no implementation;
 * src/data-access implements them.
 */

/** The services that own the operations the agent calls (the gateway owns none). */
export type OwningService = Exclude<ServiceName, 'gateway'>;

/** Port: one client per owning service, each calling for the caller (data-access/services.client.ts). */
export type ServiceClients = Record<OwningService, ServiceClient>;

/**
 * Port: the tool calls each key (a user) has running in this process, at most `limit` at once.
 * A call past the bound is refused at once rather than queued: a queue would only move
 * the pile-up from the services into the agent's memory.
 */
export interface CallsInFlight {
  readonly limit: number;
  /** A slot for `key`, or null when `key` already has `limit` calls running. The slot is freed by its release (a second release does nothing). */
  take: (key: string) => (() => void) | null;
}
