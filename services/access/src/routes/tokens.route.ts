import type { Router } from 'express';
import { z } from 'zod';
import { TokenCreate } from '@tracker/contracts';
import { parseBody, parseId, principalOf } from '@tracker/kit';
import type { AccessDeps } from '../domain/deps';
import { createPersonalToken, listTokens, recordTokenUses, revokePersonalToken } from '../domain/personal-tokens.use-case';
import { tokenCreatedJson, tokenJson } from './json';

/** The gateways' batches of token uses: at most this many a call (they flush long before). */
const TokenUses = z.strictObject({
  uses: z.array(z.strictObject({ token_id: z.number().int().positive().max(2147483647), at: z.iso.datetime() })).max(10_000),
});

/** Personal tokens in the settings (the caller's own), and the gateways' record of their use. */
export function tokensRoutes(router: Router, deps: AccessDeps): void {
  router.get('/api/v1/tokens', async (_req, res) => {
    res.json((await listTokens(deps, principalOf(res))).map(tokenJson));
  });

  router.post('/api/v1/tokens', async (req, res) => {
    res.status(201).json(tokenCreatedJson(await createPersonalToken(deps, principalOf(res), parseBody(TokenCreate, req.body))));
  });

  router.delete('/api/v1/tokens/:token_id', async (req, res) => {
    res.json(await revokePersonalToken(deps, principalOf(res), parseId('token_id', req.params.token_id)));
  });

  router.post('/internal/tokens/used', async (req, res) => {
    await recordTokenUses(deps, parseBody(TokenUses, req.body).uses);
    res.status(204).end();
  });
}
