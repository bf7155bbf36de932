import { AppError, isDatabaseUnavailable } from '@tracker/kit';
import { unavailableErrors } from '../src/routes/unavailable';

/**
 * Which database errors make /statistics and /dashboards answer 503
 * `statistics_unavailable`: the error handler the service mounts after its routes,
 * given the kit's isDatabaseUnavailable as app.ts gives it. Every other error goes on
 * unchanged to the kit's error handler.
 */
const handler = unavailableErrors(isDatabaseUnavailable);

/** What the handler passes on for `error`. */
function passedOn(error: unknown): unknown {
  let next: unknown = 'not called';
  handler(error, {} as never, {} as never, (value?: unknown) => {
    next = value;
  });
  return next;
}

describe('a database error', () => {
  const adapterError = (cause: Record<string, unknown>) => ({ name: 'PrismaClientKnownRequestError', code: 'P2010', meta: { driverAdapterError: { cause } } });
  test.each([
    ['an unreachable server', adapterError({ kind: 'DatabaseNotReachable' }), true],
    ['a missing table (not migrated)', adapterError({ kind: 'TableDoesNotExist' }), true],
    ['an admin shutdown', adapterError({ kind: 'postgres', originalCode: '57P01' }), true],
    ['a pool timeout', { name: 'PrismaClientKnownRequestError', code: 'P2024' }, true],
    ['a syntax error', adapterError({ kind: 'postgres', originalCode: '42601' }), false],
    ['a unique violation', adapterError({ kind: 'UniqueConstraintViolation' }), false],
    ['a plain error', new Error('boom'), false],
  ])('%s → unavailable: %s', (_name, error, unavailable) => {
    expect(isDatabaseUnavailable(error)).toBe(unavailable);
    const next = passedOn(error);
    if (unavailable) {
      expect(next).toBeInstanceOf(AppError);
      expect(next).toMatchObject({ code: 'statistics_unavailable', status: 503 });
    } else {
      expect(next).toBe(error);
    }
  });
});
