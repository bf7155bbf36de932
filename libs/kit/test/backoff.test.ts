import { backoffDelay } from '../src/backoff';

describe('backoffDelay', () => {
  afterEach(() => jest.restoreAllMocks());

  it('doubles from baseMs with each attempt', () => {
    expect([1, 2, 3, 4].map((attempt) => backoffDelay(attempt, { baseMs: 1000 }))).toEqual([1000, 2000, 4000, 8000]);
  });

  it('treats attempt 0 (or less) as the first', () => {
    expect(backoffDelay(0, { baseMs: 100 })).toBe(100);
    expect(backoffDelay(-3, { baseMs: 100 })).toBe(100);
  });

  it('stops growing at maxMs', () => {
    expect([1, 5, 6, 50].map((attempt) => backoffDelay(attempt, { baseMs: 1000, maxMs: 30_000 }))).toEqual([1000, 16_000, 30_000, 30_000]);
  });

  it('has no cap without maxMs', () => {
    expect(backoffDelay(21, { baseMs: 1 })).toBe(2 ** 20);
  });

  it('shortens the delay by up to the jitter share, in whole milliseconds', () => {
    const options = { baseMs: 100, maxMs: 2000, jitter: 0.25 };
    jest.spyOn(Math, 'random').mockReturnValue(0);
    expect([1, 2, 3, 10].map((attempt) => backoffDelay(attempt, options))).toEqual([75, 150, 300, 1500]);
    jest.spyOn(Math, 'random').mockReturnValue(0.999999);
    expect([1, 2, 3, 10].map((attempt) => backoffDelay(attempt, options))).toEqual([100, 200, 400, 2000]);
    jest.spyOn(Math, 'random').mockReturnValue(0.5);
    expect(backoffDelay(1, { baseMs: 10, jitter: 0.25 })).toBe(9); // 10 × 0.875 = 8.75
  });

  it('stays within [delay × (1 − jitter), delay] with real randomness', () => {
    for (let i = 0; i < 200; i++) {
      const delay = backoffDelay(3, { baseMs: 100, maxMs: 2000, jitter: 0.25 });
      expect(delay).toBeGreaterThanOrEqual(300);
      expect(delay).toBeLessThanOrEqual(400);
      expect(Number.isInteger(delay)).toBe(true);
    }
  });
});
