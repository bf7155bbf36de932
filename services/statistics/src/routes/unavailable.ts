import type { ErrorRequestHandler } from 'express';
import { UpstreamUnavailableError } from '@tracker/kit';
import { statisticsErrors } from '../domain/statistics.errors';

/**
 * After this service's routes: a dependency that is away (the database, the access
 * service) is 503 `statistics_unavailable` with Retry-After, as README (API) promises of
 * /statistics and /dashboards. Everything else goes on to the kit's error handler.
 */
export function unavailableErrors(isDatabaseUnavailable: (error: unknown) => boolean): ErrorRequestHandler {
  return (error, _req, _res, next) => {
    if (error instanceof UpstreamUnavailableError) return next(statisticsErrors.unavailable('a service it depends on is unreachable'));
    if (isDatabaseUnavailable(error)) return next(statisticsErrors.unavailable('its database is unreachable'));
    next(error);
  };
}
