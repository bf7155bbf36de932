import { API_OPERATIONS, type ServiceName } from '@tracker/contracts';

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  slash?: boolean;
  rawPath?: string;
}

/**
 * Every route an express app registers, as `METHOD /path/{param}` (OpenAPI's
 * notation), read from its router: the routes that exist, whatever a table says.
 */
export function expressRoutes(app: unknown): string[] {
  const routes: string[] = [];
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        const path = (prefix + layer.route.path).replace(/:(\w+)/g, '{$1}');
        for (const [method, on] of Object.entries(layer.route.methods)) if (on && method !== '_all') routes.push(`${method.toUpperCase()} ${path}`);
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack, layer.slash ? prefix : prefix + (layer.rawPath ?? ''));
      }
    }
  };
  walk((app as { router: { stack: Layer[] } }).router.stack, '');
  return routes;
}

/** The public (/api/v1) routes of an app, sorted. */
export const publicRoutes = (app: unknown) => expressRoutes(app).filter((r) => r.split(' ')[1]!.startsWith('/api/v1/')).sort();

/** The documented operations a service serves, as `METHOD /path/{param}`, sorted. */
export const documentedRoutes = (service: ServiceName) =>
  API_OPERATIONS.filter((o) => o.service === service)
    .map((o) => `${o.method.toUpperCase()} ${o.path}`)
    .sort();
