import type { Request, Response } from 'express';
import getRawBody from 'raw-body';
import { AppError } from '@tracker/kit';

export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * What is read off a request after its answer (a refusal given before the body was read,
 * or a 413) before the connection is closed: enough for a client still sending a body of
 * a few MiB to finish and read the answer, never more.
 */
export const LINGER = { bytes: 4 * BODY_LIMIT_BYTES, ms: 5_000 };

const hasBody = (req: Request) => req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/**
 * Reads the whole body (as sent: still encoded), once the caller is authenticated, so that
 * a client that stalls holds no upstream connection. Too slow is 408 and closes the
 * connection (the client is not worth waiting for); too large is 413, and the rest of the
 * body is read off (lingerOnUnreadBody) so the client reads the answer. No body: null.
 */
export async function readRequestBody(req: Request, res: Response, timeoutMs: number, limit = BODY_LIMIT_BYTES): Promise<Buffer | null> {
  if (!hasBody(req)) return null;
  const tooLarge = () => new AppError('payload_too_large', `The request body is larger than ${limit === BODY_LIMIT_BYTES ? '1 MiB' : `${limit / 1024} KiB`}.`);
  // Refused before a byte is read.
  if (Number(req.headers['content-length'] ?? 0) > limit) throw tooLarge();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(closing(res, new AppError('request_timeout', `The request body did not arrive within ${timeoutMs / 1000} s of its headers.`))), timeoutMs);
  });
  try {
    return await Promise.race([getRawBody(req, { limit }), timeout]);
  } catch (error) {
    if (error instanceof AppError) throw error;
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') throw tooLarge();
    // The client went away (or sent fewer bytes than it announced): nobody to answer.
    throw closing(res, new AppError('validation_failed', 'The request body could not be read.', { errors: [{ path: '(body)', message: type ?? 'unreadable' }] }));
  } finally {
    clearTimeout(timer);
  }
}

/** Node closes the socket after an answer that says `Connection: close`, unread bytes and all. */
function closing(res: Response, error: AppError): AppError {
  res.setHeader('Connection', 'close');
  return error;
}

/**
 * A lingering close. An answer given before the whole request was read (401, 429, 413)
 * leaves the rest of the body on its way. Closing the connection at once would make the
 * client's kernel reset it while the client is still writing, and many clients then see
 * EPIPE or ECONNRESET instead of the answer. So the rest is read off and dropped (never
 * kept) for up to LINGER.ms and LINGER.bytes; a body that ends within them leaves the
 * connection usable for the next request, one that goes on past them is cut off.
 */
export function lingerOnUnreadBody(req: Request): void {
  if (req.complete || req.socket.destroyed) return;
  let drained = 0;
  const cutOff = () => req.socket.destroy();
  const timer = setTimeout(cutOff, LINGER.ms);
  const done = () => clearTimeout(timer);
  req.unpipe();
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > LINGER.bytes) cutOff();
  });
  req.once('end', done);
  req.once('close', done);
  req.resume();
}
