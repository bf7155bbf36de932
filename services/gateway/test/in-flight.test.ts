import { inFlight, inFlightPerKey } from '../src/data-access/in-flight';

describe('inFlight', () => {
  test('when as many are taken as the limit, then no more until one is released', () => {
    const places = inFlight(2);
    expect([places.tryTake(), places.tryTake(), places.tryTake()]).toEqual([true, true, false]);
    places.release();
    expect(places.tryTake()).toBe(true);
  });

  test('when a rate is set, then no more than that many are taken in a second, however many are released', () => {
    let now = 1_000_000;
    const places = inFlight(100, 3, () => now);
    const taken = Array.from({ length: 10 }, () => {
      const ok = places.tryTake();
      if (ok) places.release();
      return ok;
    });
    expect(taken.filter(Boolean)).toHaveLength(3);
    now += 1000;
    expect(places.tryTake()).toBe(true);
    now += 100_000;
    // The bucket holds one second's worth, not what an idle minute would add up to.
    expect(Array.from({ length: 10 }, () => places.tryTake()).filter(Boolean)).toHaveLength(3);
  });
});

describe('inFlightPerKey', () => {
  test('when one key has its limit, then another key still has places, and a released key is forgotten', () => {
    const places = inFlightPerKey(1);
    expect([places.tryTake('a'), places.tryTake('a'), places.tryTake('b')]).toEqual([true, false, true]);
    places.release('a');
    expect(places.tryTake('a')).toBe(true);
  });
});
