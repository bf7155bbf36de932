import { LOAD_GENERATOR, perOperation } from '../src/cpu';

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
