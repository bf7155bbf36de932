import type { Router } from 'express';
import { z } from 'zod';
import { parseBody } from '@tracker/kit';
import type { AccessDeps } from '../domain/deps';
import { resolveToken } from '../domain/resolve-token.use-case';
import { resolutionJson } from './json';

const ResolveRequest = z.strictObject({ token_hash: z.string().regex(/^[0-9a-f]{64}$/) });

/** Gateway-only (signed service principal): the principal of a token hash, or null (with `expired: true` for a token past its end). */
export function internalAuthRoutes(router: Router, deps: AccessDeps): void {
  router.post('/internal/auth/resolve', async (req, res) => {
    const { token_hash } = parseBody(ResolveRequest, req.body);
    res.json(resolutionJson(await resolveToken(deps, token_hash)));
  });
}
