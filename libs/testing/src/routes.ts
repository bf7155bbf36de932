import { API_OPERATIONS, type ServiceName } from '@tracker/contracts';
import { registeredRoutes } from '@tracker/kit';

/**
 * Every route an express app registers, as `METHOD /path/{param}` (OpenAPI's
 * notation), read from its router (the kit's registeredRoutes): the routes that exist,
 * whatever a table says.
 */
export const expressRoutes = (app: unknown): string[] =>
  registeredRoutes(app as Parameters<typeof registeredRoutes>[0]).map(({ method, path }) => `${method} ${path.replace(/:(\w+)/g, '{$1}')}`);

/** The public (/api/v1) routes of an app, sorted. */
export const publicRoutes = (app: unknown) => expressRoutes(app).filter((r) => r.split(' ')[1]!.startsWith('/api/v1/')).sort();

/** The documented operations a service serves, as `METHOD /path/{param}`, sorted. */
export const documentedRoutes = (service: ServiceName) =>
  API_OPERATIONS.filter((o) => o.service === service)
    .map((o) => `${o.method.toUpperCase()} ${o.path}`)
    .sort();
