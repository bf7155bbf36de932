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
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    inFlight.release(client);
  };
  res.locals.leaveInFlight = release;
  res.once('close', release);
  return client;
}

/**
 * Gives the client's place in flight back before the answer is over: a live stream, once
 * begun, is read whole and answered, and lasts minutes; the places bound what is still
 * being read and awaited, and streams have their own bounds (the notifications service's).
 */
export function leaveInFlight(res: Response): void {
  (res.locals.leaveInFlight as (() => void) | undefined)?.();
}
