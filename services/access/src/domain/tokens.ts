import { randomBytes } from 'node:crypto';
import { ACCOUNT_LIMITS } from '@tracker/contracts';
import { hashToken, TOKEN_PREFIX } from '@tracker/authz';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 40 base62 characters carry 238 random bits (the token format promises at least 190). */
export const TOKEN_SECRET_LENGTH = 40;

export interface NewToken {
  /** Shown once to the operator, never stored. */
  token: string;
  hash: string;
  /** Non-secret prefix (the first 10 characters) that lets its owner recognise the token in listings. */
  hint: string;
}

export function generateToken(): NewToken {
  let secret = '';
  while (secret.length < TOKEN_SECRET_LENGTH) {
    for (const byte of randomBytes(64)) {
      // 248 = 4 × 62: rejecting higher bytes keeps every character equally likely.
      if (byte < 248 && secret.length < TOKEN_SECRET_LENGTH) secret += ALPHABET[byte % 62];
    }
  }
  const token = TOKEN_PREFIX + secret;
  return { token, hash: hashToken(token), hint: token.slice(0, ACCOUNT_LIMITS.prefixLength) };
}
