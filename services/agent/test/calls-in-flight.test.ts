import { callsInFlight } from '../src/data-access/calls-in-flight';
import { loadAgentConfig } from '../src/config';

describe('callsInFlight', () => {
  test('when a key holds `limit` slots, then it gets no more until one is released, and other keys are not affected', () => {
    const bound = callsInFlight(2);
    const [first, second] = [bound.take('1:7'), bound.take('1:7')];
    expect(first).toEqual(expect.any(Function));
    expect(second).toEqual(expect.any(Function));
    expect(bound.take('1:7')).toBeNull();
    expect(bound.take('2:7')).toEqual(expect.any(Function));
    first!();
    expect(bound.take('1:7')).toEqual(expect.any(Function));
    expect(bound.take('1:7')).toBeNull();
  });

  test('when a slot is released twice, then it frees one slot only', () => {
    const bound = callsInFlight(1);
    const release = bound.take('k')!;
    release();
    release();
    expect(bound.take('k')).toEqual(expect.any(Function));
    expect(bound.take('k')).toBeNull();
  });
});

describe('TOOL_CALLS_IN_FLIGHT_PER_USER', () => {
  const load = (env: Record<string, string>) => loadAgentConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env });

  test('when unset, then 8; when set, then its value', () => {
    expect(load({}).toolCallsInFlightPerUser).toBe(8);
    expect(load({ TOOL_CALLS_IN_FLIGHT_PER_USER: '2' }).toolCallsInFlightPerUser).toBe(2);
  });

  test.each(['0', '1001', '2.5', 'many'])('when it is %s, then the configuration is refused (exit 78) naming it', (value) => {
    const exit = jest.spyOn(process, 'exit').mockImplementation(((code: number) => {
      throw new Error(`exit ${code}`);
    }) as never);
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(() => load({ TOOL_CALLS_IN_FLIGHT_PER_USER: value })).toThrow('exit 78');
      expect(stderr.mock.calls.join('')).toContain('TOOL_CALLS_IN_FLIGHT_PER_USER');
    } finally {
      exit.mockRestore();
      stderr.mockRestore();
    }
  });
});
