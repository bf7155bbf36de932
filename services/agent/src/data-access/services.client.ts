import type { ServiceName } from '@tracker/contracts';
import { serviceClient, type ServiceClient } from '@tracker/kit';
import type { AgentConfig } from '../config';

export type OwningService = Exclude<ServiceName, 'gateway'>;
export type ServiceClients = Record<OwningService, ServiceClient>;

/**
 * The services that own the operations, called as the gateway calls them: the
 * caller's principal signed in the internal header, so each service decides exactly
 * as it does for a REST request.
 */
export function serviceClients(config: AgentConfig): ServiceClients {
  const client = (baseUrl: string) => serviceClient({ baseUrl, secret: config.internal.secret, timeoutMs: config.upstreamTimeoutMs });
  return {
    access: client(config.upstreams.access),
    issues: client(config.upstreams.issues),
    statistics: client(config.upstreams.statistics),
  };
}
