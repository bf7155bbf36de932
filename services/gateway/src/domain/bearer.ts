import { TOKEN_PATTERN } from '@tracker/authz';

export type BearerProblem = 'missing' | 'not_bearer' | 'malformed';

export type BearerResult = { token: string } | { problem: BearerProblem };

/** Reads `Authorization: Bearer trk_…`; only the header is accepted, never a query parameter or cookie. */
export function readBearer(header: string | undefined): BearerResult {
  if (!header) return { problem: 'missing' };
  const match = /^Bearer +(\S+) *$/i.exec(header);
  if (!match) return { problem: 'not_bearer' };
  const token = match[1]!;
  return TOKEN_PATTERN.test(token) ? { token } : { problem: 'malformed' };
}
