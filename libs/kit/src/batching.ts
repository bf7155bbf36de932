export interface BatchingOptions {
  /** The most items one batch takes. */
  maxSize: number;
  /** The most batches running at once; items wait for a free one. */
  maxInFlight: number;
}

/** What `run` answers for each item of a batch, in the order the items came. */
export type ItemResult<R> = { ok: true; value: R } | { ok: false; error: unknown };

/**
 * Turns a function of one item into one of many: the items that arrive within one turn
 * of the event loop, or while every batch slot is busy, are run together (up to
 * `maxSize`), and each caller gets its own item's result. An item alone is still run at
 * once (on the next turn), so batching costs no waiting when calls are rare. If `run`
 * itself rejects, every item of that batch rejects with its error.
 */
export function batching<T, R>(run: (items: T[]) => Promise<ItemResult<R>[]>, options: BatchingOptions): (item: T) => Promise<R> {
  const { maxSize, maxInFlight } = options;
  if (!Number.isInteger(maxSize) || maxSize < 1) throw new Error(`maxSize must be a positive integer, got ${maxSize}`);
  if (!Number.isInteger(maxInFlight) || maxInFlight < 1) throw new Error(`maxInFlight must be a positive integer, got ${maxInFlight}`);
  type Waiting = { item: T; resolve: (value: R) => void; reject: (error: unknown) => void };
  const waiting: Waiting[] = [];
  let inFlight = 0;
  let scheduled = false;

  function schedule(): void {
    if (scheduled || inFlight >= maxInFlight || waiting.length === 0) return;
    scheduled = true;
    setImmediate(startBatch);
  }

  function startBatch(): void {
    scheduled = false;
    if (inFlight >= maxInFlight || waiting.length === 0) return;
    const batch = waiting.splice(0, maxSize);
    inFlight += 1;
    // A `run` that throws at once fails its batch like one that rejects.
    Promise.resolve()
      .then(() => run(batch.map((w) => w.item)))
      .then(
        (results) => {
          batch.forEach((w, i) => {
            const result = results[i];
            if (!result) w.reject(new Error(`the batch gave no result for item ${i} of ${batch.length}`));
            else if (result.ok) w.resolve(result.value);
            else w.reject(result.error);
          });
        },
        (error: unknown) => batch.forEach((w) => w.reject(error)),
      )
      .finally(() => {
        inFlight -= 1;
        schedule();
      });
    schedule();
  }

  return (item) =>
    new Promise<R>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      schedule();
    });
}
