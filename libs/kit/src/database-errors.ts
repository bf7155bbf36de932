import { z } from 'zod';

/**
 * Whether an error from node-postgres means the database is away or not usable
 * right now (unreachable, restarting, out of connections, not migrated), as opposed to
 * a fault in a query. The first kind answers 503 like any missing dependency.
 */
const UNAVAILABLE_KINDS = new Set([
  'DatabaseNotReachable',
  'DatabaseDoesNotExist',
  'DatabaseAccessDenied',
  'AuthenticationFailed',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'TlsConnectionError',
  'TableDoesNotExist',
]);

// Postgres classes: 08 connection exception, 53 insufficient resources, 57 operator
// intervention (shutdown; 57014 query_canceled: statement_timeout), 40001/40P01 serialization and deadlock,
// 55P03 lock wait over lock_timeout, 25P03 transaction idle past its limit.
const UNAVAILABLE_SQLSTATE = /^(08|53|57|40001|40P01|55P03|25P03)/;

export function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { name?: string; code?: string; message?: string; meta?: { driverAdapterError?: { cause?: { kind?: string; originalCode?: string } } } } | null;
  if (!e || typeof e !== 'object') return false;
  // node-postgres itself: every pool connection busy past connectionTimeoutMillis, or the server refusing.
  if (e.message === 'timeout exceeded when trying to connect' || e.message === 'Connection terminated unexpectedly') return true;
  if (e.code === 'ECONNREFUSED' || e.code === 'ECONNRESET') return true;
  // node-postgres carries the SQLSTATE itself in `code`.
  if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && UNAVAILABLE_SQLSTATE.test(e.code)) return true;
  if (e.name === 'PrismaClientInitializationError') return true;
  // P1001/P1002/P1008/P1017: server unreachable, timed out or closed; P2024: no pool connection in time; P2028: transaction API.
  if (e.code && ['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028'].includes(e.code)) return true;
  const cause = e.meta?.driverAdapterError?.cause;
  if (cause?.kind && UNAVAILABLE_KINDS.has(cause.kind)) return true;
  return typeof cause?.originalCode === 'string' && UNAVAILABLE_SQLSTATE.test(cause.originalCode);
}

/** How long a request waits for a pool connection before it answers 503 (never a hung request). */
export const POOL_CONNECT_TIMEOUT_MS = 5000;

/** Longest wait for a row lock; past it the request answers 503 and the client may retry. */
export const LOCK_TIMEOUT_MS = 10_000;
/** A transaction left idle this long (a stuck request) is ended by the server, releasing its locks. */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 20_000;
/**
 * Longest a single statement may run (its lock waits included) before the server cancels
 * it (57014 query_canceled: 503 with Retry-After, the transaction rolled back). Every
 * request's statements are bounded, whatever the data a tenant has piled up; work that
 * legitimately runs longer (a replica rebuild) raises it for its own transactions
 * (`SET LOCAL statement_timeout`). Env `DATABASE_STATEMENT_TIMEOUT_MS`.
 */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 5000;

/** `DATABASE_STATEMENT_TIMEOUT_MS` of a service config: 100 ms to 10 minutes. */
export const statementTimeoutEnv = () => z.coerce.number().int().min(100).max(600_000).default(DEFAULT_STATEMENT_TIMEOUT_MS);

export interface ServiceDatabase {
  url: string;
  schema: string;
  poolMax: number;
  /** Per statement; DEFAULT_STATEMENT_TIMEOUT_MS when absent. */
  statementTimeoutMs?: number;
}

/**
 * node-postgres pool settings of a service's own schema: the schema on the search_path
 * (raw SQL finds the same tables as Prisma), a bounded wait for a free connection, and
 * bounded lock waits, statements and idle transactions on every connection.
 */
export function servicePoolConfig(database: ServiceDatabase) {
  const url = new URL(database.url);
  url.searchParams.delete('schema');
  const statementTimeoutMs = Math.trunc(database.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS);
  return {
    connectionString: url.toString(),
    max: database.poolMax,
    options:
      `-c search_path="${database.schema}" -c lock_timeout=${LOCK_TIMEOUT_MS} ` +
      `-c idle_in_transaction_session_timeout=${IDLE_IN_TRANSACTION_TIMEOUT_MS} -c statement_timeout=${statementTimeoutMs}`,
    connectionTimeoutMillis: POOL_CONNECT_TIMEOUT_MS,
    // Statements sent without awaiting the one before go out at once (inTransaction's BEGIN and COMMIT).
    pipeline: true,
  };
}
