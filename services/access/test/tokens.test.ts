import { createHash } from 'node:crypto';
import { hashToken, TOKEN_PATTERN } from '@tracker/authz';
import { generateToken, TOKEN_SECRET_LENGTH } from '../src/domain/tokens';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SAMPLE = 2000;
const tokens = Array.from({ length: SAMPLE }, () => generateToken());

/** How often each base62 character appears in the secret part of all sampled tokens. */
const counts = new Map<string, number>([...BASE62].map((c) => [c, 0]));
for (const { token } of tokens) for (const c of token.slice(4)) counts.set(c, (counts.get(c) ?? 0) + 1);
const mean = (SAMPLE * TOKEN_SECRET_LENGTH) / BASE62.length;

describe('generateToken', () => {
  test('when a token is generated, then it is trk_ and 40 base62 characters and matches TOKEN_PATTERN', () => {
    const { token } = generateToken();
    expect(TOKEN_SECRET_LENGTH).toBe(40);
    expect(token).toMatch(/^trk_[0-9A-Za-z]{40}$/);
    expect(TOKEN_PATTERN.test(token)).toBe(true);
  });

  test('when a token is generated, then its hash is the SHA-256 hex of the whole token', () => {
    const { token, hash } = generateToken();
    expect(hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(hash).toBe(hashToken(token));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
  });

  test('when a token is generated, then its hint is its first 10 characters and reveals only 6 of its 40 secret ones', () => {
    const { token, hint } = generateToken();
    expect(hint).toBe(token.slice(0, 10));
    expect(hint).toMatch(/^trk_[0-9A-Za-z]{6}$/);
  });

  test(`when ${SAMPLE} tokens are generated, then every token and every hash is distinct and valid`, () => {
    expect(new Set(tokens.map((t) => t.token)).size).toBe(SAMPLE);
    expect(new Set(tokens.map((t) => t.hash)).size).toBe(SAMPLE);
    expect(tokens.every((t) => /^trk_[0-9A-Za-z]{40}$/.test(t.token))).toBe(true);
  });

  test(`when ${SAMPLE} tokens are generated, then each of the 62 characters appears between 40% and 160% of the mean count`, () => {
    expect(counts.size).toBe(62); // a character outside the alphabet would add a key
    const outliers = [...counts].filter(([, count]) => count < 0.4 * mean || count > 1.6 * mean);
    expect(outliers.map(([char, count]) => `${char}: ${count} (mean ${mean})`)).toEqual([]);
  });

  // A plain `byte % 62` would make 0-7 a quarter more likely (256 = 4 × 62 + 8); the mean count
  // per character is about 1290, so ±10% on the average of eight characters is about 8 standard deviations.
  test('when many tokens are generated, then the first eight alphabet characters are not favoured (no modulo bias)', () => {
    const average = (chars: string) => [...chars].reduce((sum, c) => sum + counts.get(c)!, 0) / chars.length;
    const ratio = average(BASE62.slice(0, 8)) / average(BASE62.slice(8));
    expect(ratio).toBeGreaterThan(0.9);
    expect(ratio).toBeLessThan(1.1);
  });
});
