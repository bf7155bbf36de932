import type { Metrics } from '@tracker/kit';
import type { CallsInFlight, ServiceClients } from './ports';


/** What the tool calls are given; wired once in app.ts (and in tests). */
export interface AgentDeps {
  services: ServiceClients;
  metrics: Metrics;
  /** Each user's tool calls running in this process (TOOL_CALLS_IN_FLIGHT_PER_USER). */
  callsInFlight: CallsInFlight;
}
