import type { ServiceName } from '@tracker/contracts';
import type { Metrics, ServiceClient } from '@tracker/kit';
import type { CallsInFlight } from './calls-in-flight';

/** The services that own the operations the agent calls (the gateway owns none). */
export type OwningService = Exclude<ServiceName, 'gateway'>;

/** Port: one client per owning service, each calling for the caller (data-access/services.client.ts). */
export type ServiceClients = Record<OwningService, ServiceClient>;

export interface AgentDeps {
  services: ServiceClients;
  metrics: Metrics;
  /** Each user's tool calls running in this process (TOOL_CALLS_IN_FLIGHT_PER_USER). */
  callsInFlight: CallsInFlight;
}
