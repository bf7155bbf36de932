import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { AppError, type FieldError } from './errors';
import { bodyDigest } from './principal';

/**
 * Request bodies, one rule for every service: UTF-8 only, no string or field name with a
 * lone UTF-16 surrogate (Postgres cannot store one), and structural limits checked on the
 * raw bytes before JSON.parse, so a body past them costs a service no more than a scan of
 * its bytes before it is refused.
 */

/**
 * No valid body comes within half of these: the deepest (an MCP tools/call with
 * create_dashboard arguments) nests 7 levels; the widest (a dashboard of 30 widgets with
 * every filter, as a tool call) has about 370 object members and 1,030 array elements
 * (its filters name at most 1,000 ids in all). Elements are the costly part for
 * validation (one error each when invalid), hence their lower bound.
 */
export const BODY_LIMITS = {
  /** Objects and arrays nested inside each other, the outermost one included. */
  depth: 32,
  /** Object members (name: value pairs) in the whole body. */
  members: 2_000,
  /** Array elements in the whole body. */
  elements: 5_000,
} as const;
export type BodyLimits = { [K in keyof typeof BODY_LIMITS]: number };

/** The `message` of each refusal, as the 422's `errors` list carries it. */
export const BODY_MESSAGES = {
  notUtf8: 'the body is not valid UTF-8',
  notUtf8Charset: 'the body must be UTF-8 (no other charset)',
  depth: `nested deeper than ${BODY_LIMITS.depth} levels`,
  members: `more than ${BODY_LIMITS.members} object members`,
  elements: `more than ${BODY_LIMITS.elements} array elements`,
  loneSurrogate: 'must not contain a lone UTF-16 surrogate (U+D800 to U+DFFF without its pair)',
  loneSurrogateKey: 'field name must not contain a lone UTF-16 surrogate (U+D800 to U+DFFF without its pair)',
} as const;

export interface JsonScan {
  /** The first limit exceeded (the scan stopped there), or null. */
  exceeded: keyof BodyLimits | null;
  /** A `\uD800`-`\uDFFF` escape occurs in a string: only then can the parsed value hold a lone surrogate. */
  surrogateEscape: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;
const LOWER_U = 0x75;

/** Each byte's part in the scan: whitespace, structure, or anything else (numbers, literals). */
const WHITESPACE = 1;
const STRUCTURE = 2;
const BYTE_KIND = new Uint8Array(256);
for (const c of [0x20, 0x0a, 0x0d, 0x09]) BYTE_KIND[c] = WHITESPACE;
for (const c of [QUOTE, OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY, COLON, COMMA]) BYTE_KIND[c] = STRUCTURE;

/** `d` or `D` then `8`-`f`: the first two hex digits of a surrogate escape. */
const isSurrogateEscape = (bytes: Uint8Array, i: number) => {
  const first = bytes[i]! | 0x20;
  const second = bytes[i + 1]! | 0x20;
  return first === 0x64 && (second === 0x38 || second === 0x39 || (second >= 0x61 && second <= 0x66));
};

/**
 * One pass over the bytes of a JSON text, outside strings counting nesting, object
 * members (a `:`) and array elements, stopping at the first limit exceeded. Malformed
 * JSON is scanned all the same; JSON.parse refuses it afterwards.
 */
export function scanJson(bytes: Uint8Array, limits: BodyLimits = BODY_LIMITS): JsonScan {
  const end = bytes.length;
  let depth = 0;
  let members = 0;
  let elements = 0;
  let surrogateEscape = false;
  // Whether each open container is an array; at most limits.depth are open.
  const inArray = new Uint8Array(limits.depth + 1);
  // Just after `[`: the next token, unless `]`, is the array's first element.
  let arrayOpened = false;
  // The next quote and backslash at or after a position (end: none), found by native
  // searches and kept, so each byte of a string is searched once.
  let quote = -1;
  let backslash = -1;
  const stop = (limit: keyof BodyLimits): JsonScan => ({ exceeded: limit, surrogateEscape });
  for (let i = 0; i < end; i++) {
    const c = bytes[i]!;
    const kind = BYTE_KIND[c];
    if (kind === WHITESPACE) {
      while (i + 1 < end && BYTE_KIND[bytes[i + 1]!] === WHITESPACE) i++;
      continue;
    }
    if (arrayOpened) {
      arrayOpened = false;
      if (c !== CLOSE_ARRAY && ++elements > limits.elements) return stop('elements');
    }
    if (kind !== STRUCTURE) {
      // The rest of a number or literal.
      while (i + 1 < end && BYTE_KIND[bytes[i + 1]!] === 0) i++;
      continue;
    }
    switch (c) {
      case QUOTE:
        // To the closing quote; an escape (a backslash before it) takes the next byte with it.
        for (;;) {
          if (quote <= i) quote = orEnd(bytes.indexOf(QUOTE, i + 1), end);
          if (backslash <= i) backslash = bytes[i + 1] === BACKSLASH ? i + 1 : orEnd(bytes.indexOf(BACKSLASH, i + 1), end);
          if (backslash >= quote) {
            i = quote;
            break;
          }
          if (bytes[backslash + 1] === LOWER_U && isSurrogateEscape(bytes, backslash + 2)) surrogateEscape = true;
          i = backslash + 1;
        }
        break;
      case OPEN_OBJECT:
      case OPEN_ARRAY:
        if (++depth > limits.depth) return stop('depth');
        inArray[depth] = c === OPEN_ARRAY ? 1 : 0;
        arrayOpened = c === OPEN_ARRAY;
        break;
      case CLOSE_OBJECT:
      case CLOSE_ARRAY:
        if (depth > 0) depth--;
        break;
      case COLON:
        if (++members > limits.members) return stop('members');
        break;
      case COMMA:
        if (inArray[depth] === 1 && ++elements > limits.elements) return stop('elements');
        break;
    }
  }
  return { exceeded: null, surrogateEscape };
}

const orEnd = (index: number, end: number) => (index === -1 ? end : index);

// Node 20 has String.prototype.isWellFormed; TypeScript's ES2022 lib does not declare it.
const wellFormed = (text: string) => (text as string & { isWellFormed(): boolean }).isWellFormed();
const shown = (text: string) => (text as string & { toWellFormed(): string }).toWellFormed();

/**
 * Every string and field name of a parsed body that holds a lone surrogate, with its
 * path as validation errors give it (`labels.0`; a field name shown with U+FFFD).
 */
export function loneSurrogates(value: unknown, path: Array<string | number> = [], found: FieldError[] = []): FieldError[] {
  const at = (p: Array<string | number>) => shown(p.join('.')) || '(body)';
  if (typeof value === 'string') {
    if (!wellFormed(value)) found.push({ path: at(path), message: BODY_MESSAGES.loneSurrogate });
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => loneSurrogates(item, [...path, index], found));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (!wellFormed(key)) found.push({ path: at([...path, key]), message: BODY_MESSAGES.loneSurrogateKey });
      loneSurrogates(item, [...path, key], found);
    }
  }
  return found;
}

const refused = (message: string, detail = 'The request body is not valid.') =>
  new AppError('validation_failed', detail, { errors: [{ path: '(body)', message }] });

/** Requests whose body has a surrogate escape: their parsed body is walked. */
const withSurrogateEscape = new WeakSet<IncomingMessage>();

/**
 * Runs on the raw body before JSON.parse (body-parser's `verify`). A thrown AppError
 * keeps its 422: body-parser only adds its 403 to errors without a status.
 */
/** The digest of each request's body bytes as they came (before any Content-Encoding is undone), for its ticket (principal.ts). */
const digests = new WeakMap<IncomingMessage, string>();
export const receivedBodyDigest = (req: IncomingMessage) => digests.get(req) ?? EMPTY_DIGEST;
const EMPTY_DIGEST = bodyDigest(undefined);

/**
 * Hashes the body as it streams past to the parser. Listening from here on is safe:
 * the parser attaches in this same tick, before any chunk can arrive.
 */
function digestBody(req: Request, _res: Response, next: NextFunction) {
  const hash = createHash('sha256');
  req.on('data', (chunk: Buffer) => hash.update(chunk));
  req.on('end', () => digests.set(req, hash.digest('base64url')));
  next();
}

function verifyBody(req: IncomingMessage, _res: unknown, bytes: Buffer, encoding: string): void {
  // RFC 8259: JSON between systems is UTF-8; the scan below reads UTF-8 bytes only.
  if (!/^utf-?8$/i.test(encoding)) throw refused(BODY_MESSAGES.notUtf8Charset);
  if (!isUtf8(bytes)) throw refused(BODY_MESSAGES.notUtf8);
  const scan = scanJson(bytes);
  if (scan.exceeded) {
    throw refused(
      BODY_MESSAGES[scan.exceeded],
      `The request body exceeds a limit: at most ${BODY_LIMITS.depth} levels of nesting, ${BODY_LIMITS.members} object members and ${BODY_LIMITS.elements} array elements.`,
    );
  }
  if (scan.surrogateEscape) withSurrogateEscape.add(req);
}

function refuseLoneSurrogates(req: Request, _res: Response, next: NextFunction) {
  if (!withSurrogateEscape.has(req)) return next();
  const errors = loneSurrogates(req.body);
  next(errors.length ? new AppError('validation_failed', 'The request body is not valid.', { errors }) : undefined);
}

/**
 * JSON body parsing with the checks above: express.json, then the surrogate walk when
 * needed. A body of another type (a GET may carry one) is read as bytes, unparsed, so
 * that its digest can be checked against the request's ticket. A request without a body
 * (neither Content-Length nor Transfer-Encoding, as body-parser decides) skips them all,
 * its digest that of no bytes; req.body stays unset.
 */
export function jsonBodyReader(limit: string): (req: Request, res: Response) => Promise<void> {
  const layers: RequestHandler[] = [digestBody, express.json({ limit, strict: true, verify: verifyBody }), express.raw({ limit, type: () => true }), refuseLoneSurrogates];
  return (req, res) => (hasBody(req) ? runLayers(layers, req, res) : Promise.resolve());
}

/** As type-is's hasBody, which body-parser asks before reading. */
const hasBody = (req: IncomingMessage) => req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(req.headers['content-length']));

/** Runs express layers one after another as a router would; the first error rejects. */
function runLayers(layers: readonly RequestHandler[], req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    let index = 0;
    const step = (error?: unknown) => {
      if (error) return reject(error);
      const layer = layers[index++];
      if (!layer) return resolve();
      try {
        void layer(req, res, step);
      } catch (thrown) {
        reject(thrown);
      }
    };
    step();
  });
}
