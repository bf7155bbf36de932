import type { Request, Response } from 'express';
import getRawBody from 'raw-body';
import { AppError } from '@tracker/kit';

export const BODY_LIMIT_BYTES = 1024 * 1024;

const hasBody = (req: Request) => req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/**
 * Reads the whole body (as sent: still encoded) before anything else happens, so that
 * the caller is authenticated when the request is complete, not when its headers came
 * (a revoke answered in between holds), and so that a client that stalls holds no
 * upstream connection. Too slow is 408, too large while reading 413; both close the
 * connection, since the rest of the body is not worth reading. No body: null.
 */
export async function readRequestBody(req: Request, res: Response, timeoutMs: number): Promise<Buffer | null> {
  if (!hasBody(req)) return null;
  // Refused before a byte is read: the announced body is drained (drainUnreadBody), so a
  // client still sending it reads the answer rather than a reset connection.
  if (Number(req.headers['content-length'] ?? 0) > BODY_LIMIT_BYTES) throw tooLarge();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(closing(res, new AppError('request_timeout', `The request body did not arrive within ${timeoutMs / 1000} s of its headers.`))), timeoutMs);
  });
  try {
    return await Promise.race([getRawBody(req, { limit: BODY_LIMIT_BYTES }), timeout]);
  } catch (error) {
    if (error instanceof AppError) throw error;
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') throw closing(res, tooLarge());
    // The client went away (or sent fewer bytes than it announced): nobody to answer.
    throw closing(res, new AppError('validation_failed', 'The request body could not be read.', { errors: [{ path: '(body)', message: type ?? 'unreadable' }] }));
  } finally {
    clearTimeout(timer);
  }
}

const tooLarge = () => new AppError('payload_too_large', 'The request body is larger than 1 MiB.');

/** Node closes the socket after an answer that says `Connection: close`, unread bytes and all. */
function closing(res: Response, error: AppError): AppError {
  res.setHeader('Connection', 'close');
  return error;
}

/**
 * An answer given before the body was read (401 for a missing token) leaves the rest
 * on the client's connection: it must still be read off, or the next request on that
 * keep-alive connection waits behind it until a timeout. A body that goes on past the
 * limit is not worth waiting for: the connection is closed.
 */
export function drainUnreadBody(req: Request): void {
  if (req.complete || req.socket.destroyed) return;
  let drained = 0;
  req.unpipe();
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > BODY_LIMIT_BYTES) req.socket.destroy();
  });
  req.resume();
}
