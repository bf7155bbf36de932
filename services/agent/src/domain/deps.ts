import type { Metrics } from '@tracker/kit';
import type { ServiceClients } from '../data-access/services.client';

export interface AgentDeps {
  services: ServiceClients;
  metrics: Metrics;
}
