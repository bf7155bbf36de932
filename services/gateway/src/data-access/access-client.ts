import { PRINCIPAL_HEADER, signPrincipal, type UserPrincipal } from '@tracker/kit';

export class AccessUnavailableError extends Error {}

/** Asks the access service who owns a token hash (on a cache miss or with Redis away). */
export function accessClient(options: { baseUrl: string; secret: string; timeoutMs: number }) {
  const endpoint = new URL('/internal/auth/resolve', options.baseUrl).toString();
  return {
    async resolve(tokenHash: string, requestId: string): Promise<UserPrincipal | null> {
      let response: Response;
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-request-id': requestId,
            [PRINCIPAL_HEADER]: signPrincipal({ kind: 'service', service: 'gateway' }, options.secret),
          },
          body: JSON.stringify({ token_hash: tokenHash }),
          signal: AbortSignal.timeout(options.timeoutMs),
        });
      } catch (err) {
        throw new AccessUnavailableError(`access service unreachable: ${(err as Error).message}`);
      }
      if (!response.ok) throw new AccessUnavailableError(`access service answered ${response.status}`);
      const body = (await response.json()) as { principal: UserPrincipal | null };
      return body.principal;
    },
  };
}

export type AccessClient = ReturnType<typeof accessClient>;
