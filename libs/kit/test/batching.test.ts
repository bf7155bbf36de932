import { batching, type ItemResult } from '../src/batching';

const ok = <R>(value: R): ItemResult<R> => ({ ok: true, value });

/** A run whose batches are recorded and finish only when released. */
function controlledRun() {
  const batches: number[][] = [];
  const releases: Array<() => void> = [];
  const run = (items: number[]) => {
    batches.push(items);
    return new Promise<ItemResult<number>[]>((resolve) => releases.push(() => resolve(items.map((n) => ok(n * 10)))));
  };
  return { batches, releases, run };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('batching', () => {
  it('runs the calls of one turn together and gives each caller its own result', async () => {
    const run = jest.fn(async (items: number[]) => items.map((n) => ok(n * 2)));
    const call = batching(run, { maxSize: 10, maxInFlight: 1 });
    await expect(Promise.all([call(1), call(2), call(3)])).resolves.toEqual([2, 4, 6]);
    expect(run.mock.calls).toEqual([[[1, 2, 3]]]);
  });

  it('runs a lone call on the next turn, without waiting for company', async () => {
    const run = jest.fn(async (items: number[]) => items.map((n) => ok(n)));
    const call = batching(run, { maxSize: 10, maxInFlight: 1 });
    const answer = call(7);
    await turn();
    expect(run).toHaveBeenCalledWith([7]);
    await expect(answer).resolves.toBe(7);
  });

  it('takes at most maxSize items per batch, in the order they came', async () => {
    const run = jest.fn(async (items: number[]) => items.map((n) => ok(n)));
    const call = batching(run, { maxSize: 2, maxInFlight: 3 });
    await Promise.all([1, 2, 3, 4, 5].map(call));
    expect(run.mock.calls.map(([items]) => items)).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('gathers the calls made while every slot is busy into the next batch', async () => {
    const { batches, releases, run } = controlledRun();
    const call = batching(run, { maxSize: 100, maxInFlight: 1 });
    const first = call(1);
    await turn();
    const later = [call(2), call(3), call(4)];
    await turn();
    expect(batches).toEqual([[1]]);
    releases[0]!();
    await expect(first).resolves.toBe(10);
    await turn();
    expect(batches).toEqual([[1], [2, 3, 4]]);
    releases[1]!();
    await expect(Promise.all(later)).resolves.toEqual([20, 30, 40]);
  });

  it('never runs more than maxInFlight batches at once', async () => {
    const { batches, releases, run } = controlledRun();
    const call = batching(run, { maxSize: 1, maxInFlight: 2 });
    const answers = [1, 2, 3, 4].map(call);
    for (let i = 0; i < 5; i++) await turn();
    expect(batches).toEqual([[1], [2]]);
    releases[0]!();
    for (let i = 0; i < 5; i++) await turn();
    expect(batches).toEqual([[1], [2], [3]]);
    releases[1]!();
    releases[2]!();
    for (let i = 0; i < 5; i++) await turn();
    releases[3]!();
    await expect(Promise.all(answers)).resolves.toEqual([10, 20, 30, 40]);
  });

  it('rejects only the items whose result is an error', async () => {
    const call = batching(async (items: number[]) => items.map((n) => (n % 2 ? ok(n) : { ok: false as const, error: new Error(`even ${n}`) })), { maxSize: 10, maxInFlight: 1 });
    const results = await Promise.allSettled([call(1), call(2), call(3)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('even 2'));
  });

  it('rejects every item of a batch whose run fails, and goes on with the next', async () => {
    let calls = 0;
    const call = batching(
      (items: number[]) => {
        calls += 1;
        if (calls === 1) throw new Error('down');
        return Promise.resolve(items.map(ok));
      },
      { maxSize: 10, maxInFlight: 1 },
    );
    const failed = await Promise.allSettled([call(1), call(2)]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await expect(call(3)).resolves.toBe(3);
  });

  it('rejects an item the run gave no result for', async () => {
    const call = batching(async () => [], { maxSize: 10, maxInFlight: 1 });
    await expect(call(1)).rejects.toThrow('no result for item 0');
  });

  it('refuses sizes that are not positive integers', () => {
    const run = async () => [];
    expect(() => batching(run, { maxSize: 0, maxInFlight: 1 })).toThrow('maxSize');
    expect(() => batching(run, { maxSize: 1, maxInFlight: 1.5 })).toThrow('maxInFlight');
  });
});
