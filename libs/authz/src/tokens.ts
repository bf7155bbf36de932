import { createHash } from 'node:crypto';

/** Tokens: `trk_` then 32+ base62 characters (190+ random bits), for secret scanners. */
export const TOKEN_PREFIX = 'trk_';
export const TOKEN_PATTERN = /^trk_[0-9A-Za-z]{32,128}$/;

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
