import type { Request, Response } from 'express';
import { INTERNAL_HEADERS } from '@tracker/kit';
import type { GatewayConfig } from '../config';
import type { inFlightPerKey } from '../data-access/in-flight';
import { gatewayErrors } from '../domain/gateway.errors';
import { clientAddressOf } from '../domain/rate-limit';

/** Requests in progress per client address, shared by every route of the gateway. */
export type ClientsInFlight = ReturnType<typeof inFlightPerKey>;

/**
 * What every request through the gateway goes through first, whichever route: the
 * headers only the gateway sets are dropped from what the client sent, and the client
 * (its address, or the proxy's header) takes one of its places in flight until the
 * answer is over, or is refused with 429. Answers the client's address.
 */
export function admit(req: Request, res: Response, config: GatewayConfig, inFlight: ClientsInFlight): string {
  for (const header of INTERNAL_HEADERS) delete req.headers[header];
  const addressHeader = config.auth.clientAddressHeader;
  const client = clientAddressOf(req.headers[addressHeader ?? ''], req.socket.remoteAddress, addressHeader !== undefined);
  if (!inFlight.tryTake(client)) throw gatewayErrors.tooManyInFlight(config.clientRequestsInFlight);
  res.once('close', () => inFlight.release(client));
  return client;
}
