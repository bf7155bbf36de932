import type { Router } from 'express';
import { OPENAPI_PATH, openApiDocument } from '@tracker/contracts';

/** The published schema needs no token, so it is served before authentication. */
export function openApiRoutes(router: Router): void {
  const body = JSON.stringify(openApiDocument());
  router.get(OPENAPI_PATH, (_req, res) => {
    res.type('application/json').send(body);
  });
}
