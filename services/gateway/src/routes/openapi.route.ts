import type { Router } from 'express';
import { OPENAPI_PATH, openApiDocument } from '@tracker/contracts';
import { sendJsonText } from '@tracker/kit';

/** The published schema needs no token, so it is served before authentication. */
export function openApiRoutes(router: Router): void {
  const body = Buffer.from(JSON.stringify(openApiDocument()));
  router.get(OPENAPI_PATH, (_req, res) => {
    sendJsonText(res, body);
  });
}
