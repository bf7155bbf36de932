import { internalClient, UpstreamUnavailableError, type TicketKeys, type UserPrincipal } from '@tracker/kit';
import type { TokenResolver } from '../domain/deps';

/** Asks the access service who owns a token hash (on a cache miss or with Redis away). */
export function accessClient(options: { baseUrl: string; keys: TicketKeys; timeoutMs: number }): TokenResolver {
  const client = internalClient({ ...options, audience: 'access' });
  return {
    async resolve(tokenHash, requestId) {
      const { status, body } = await client.call<{ principal: UserPrincipal | null }>('POST', '/internal/auth/resolve', {
        body: { token_hash: tokenHash },
        requestId,
      });
      if (status !== 200) throw new UpstreamUnavailableError(`access service answered ${status}`);
      return body.principal;
    },
  };
}
