import { serviceClient } from '@tracker/kit';
import type { AgentConfig } from '../config';
import type { OwningService, ServiceClients } from '../domain/ports';

/**
 * The services that own the operations, called for the caller: each ticket carries the
 * gateway's proof for that service that the caller is calling the agent now, so each
 * service decides exactly as it does for a REST request, and the agent can act for no one else.
 */
export function serviceClients(config: AgentConfig): ServiceClients {
  const client = (audience: OwningService, baseUrl: string) =>
    serviceClient({ baseUrl, audience, keys: config.internal, timeoutMs: config.upstreamTimeoutMs });
  return {
    access: client('access', config.upstreams.access),
    issues: client('issues', config.upstreams.issues),
    statistics: client('statistics', config.upstreams.statistics),
    notifications: client('notifications', config.upstreams.notifications),
  };
}
