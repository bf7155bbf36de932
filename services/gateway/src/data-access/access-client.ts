import { internalClient, UpstreamUnavailableError, type UserPrincipal } from '@tracker/kit';

/** Asks the access service who owns a token hash (on a cache miss or with Redis away). */
export function accessClient(options: { baseUrl: string; secret: string; timeoutMs: number }) {
  const client = internalClient({ ...options, service: 'gateway' });
  return {
    async resolve(tokenHash: string, requestId: string): Promise<UserPrincipal | null> {
      const { status, body } = await client.call<{ principal: UserPrincipal | null }>('POST', '/internal/auth/resolve', {
        body: { token_hash: tokenHash },
        requestId,
      });
      if (status !== 200) throw new UpstreamUnavailableError(`access service answered ${status}`);
      return body.principal;
    },
  };
}

export type AccessClient = ReturnType<typeof accessClient>;
