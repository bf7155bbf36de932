import { internalClient, UpstreamUnavailableError, type TicketKeys, type UserPrincipal } from '@tracker/kit';
import type { TokenResolver, TokenUseSink } from '../domain/ports';

/** Asks the access service who owns a token hash (on a cache miss or with Redis away). */
export function accessClient(options: { baseUrl: string; keys: TicketKeys; timeoutMs: number }): TokenResolver & TokenUseSink {
  const client = internalClient({ ...options, audience: 'access' });
  return {
    async resolve(tokenHash, requestId) {
      const { status, body } = await client.call<{ principal: UserPrincipal | null; expired?: boolean }>('POST', '/internal/auth/resolve', {
        body: { token_hash: tokenHash },
        requestId,
      });
      if (status !== 200) throw new UpstreamUnavailableError(`access service answered ${status}`);
      return body.principal ?? (body.expired === true ? 'expired' : null);
    },

    async recordUses(uses) {
      const { status } = await client.call('POST', '/internal/tokens/used', { body: { uses: uses.map((use) => ({ token_id: use.tokenId, at: use.at.toISOString() })) } });
      if (status !== 204) throw new UpstreamUnavailableError(`access service answered ${status}`);
    },
  };
}
