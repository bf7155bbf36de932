export * from './app';
export * from './backoff';
export * from './batching';
export * from './config';
export * from './database-errors';
export * from './errors';
export * from './internal-client';
// The rest of internals.ts serves the kit's own modules; the route list serves the tests.
export { CHECKED_AGAINST, registeredRoutes } from './internals';
export * from './json-body';
export * from './logger';
export * from './principal';
export * from './seen-tickets';
export * from './server';
export * from './validation';
export * from './metrics';
export * from './postgres';
export * from './sql';
export * from './idempotency';
