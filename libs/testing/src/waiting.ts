export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` stops throwing (the last error is rethrown after the timeout). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(50);
    }
  }
}
