import { leaveOut, LOAD_GENERATOR, perOperation } from '../src/cpu';

describe('perOperation', () => {
  const cpu = new Map([
    ['issues', 1.2],
    [LOAD_GENERATOR, 0.4],
    ['postgres', 0.6],
    ['redis', 0.000_005],
  ]);

  it('divides each group\'s CPU seconds by the operations, in ms, largest first', () => {
    const per = perOperation(cpu, 1000);
    expect(per.text).toBe('issues 1.20, postgres 0.60, load generator 0.40');
    expect([...per.byGroup.keys()]).toEqual(['issues', 'postgres', LOAD_GENERATOR]);
  });

  it('counts the load generator in the total and leaves it out of what serving cost', () => {
    const per = perOperation(cpu, 1000);
    expect(per.totalMs).toBeCloseTo(2.2, 10);
    expect(per.servingMs).toBeCloseTo(1.8, 10);
  });

  it('treats no operations as one, never dividing by zero', () => {
    expect(perOperation(new Map([['issues', 0.002]]), 0).totalMs).toBeCloseTo(2, 10);
  });
});

describe('leaveOut', () => {
  const cpu = new Map([
    ['access', 12],
    [LOAD_GENERATOR, 0.9],
  ]);

  it("takes what is not the measured work off one group's CPU seconds, the others untouched", () => {
    const left = leaveOut(cpu, LOAD_GENERATOR, 0.6);
    expect(left.get(LOAD_GENERATOR)).toBeCloseTo(0.3, 10);
    expect(left.get('access')).toBe(12);
    expect(cpu.get(LOAD_GENERATOR)).toBe(0.9);
  });

  it('never goes below zero, and leaves a group that used nothing out', () => {
    expect(leaveOut(cpu, LOAD_GENERATOR, 2).get(LOAD_GENERATOR)).toBe(0);
    expect(leaveOut(cpu, 'gateway', 1).has('gateway')).toBe(false);
  });
});
