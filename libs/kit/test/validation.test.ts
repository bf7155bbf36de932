import { z } from 'zod';
import { AppError } from '../src/errors';
import { parseBody, parseId, parseQuery } from '../src/validation';

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

describe('parseId', () => {
  test.each([
    ['1', 1],
    ['42', 42],
    ['2147483647', 2147483647],
  ])('when the path id is %j, then it is the number %d', (raw, expected) => {
    expect(parseId('issue_id', raw)).toBe(expected);
  });

  test('when a larger `max` is given, then ids up to it pass (the safe integers at most) and past it are 422', () => {
    expect(parseId('delivery_id', '9007199254740991', Number.MAX_SAFE_INTEGER)).toBe(9007199254740991);
    expect(thrownBy(() => parseId('delivery_id', '9007199254740992', Number.MAX_SAFE_INTEGER))).toMatchObject({ code: 'validation_failed' });
    expect(thrownBy(() => parseId('delivery_id', '2147483648'))).toMatchObject({ code: 'validation_failed' });
  });

  test.each<[string, unknown]>([
    ['zero', '0'],
    ['negative', '-1'],
    ['with a leading zero', '01'],
    ['with a plus sign', '+1'],
    ['a decimal', '1.0'],
    ['in exponent notation', '1e3'],
    ['hexadecimal', '0x1A'],
    ['with a leading space', ' 1'],
    ['with a trailing space', '1 '],
    ['not a number', 'abc'],
    ['empty', ''],
    ['undefined', undefined],
    ['one above the int4 range', '2147483648'],
    ['beyond the safe integers', '9007199254740993'],
    ['twenty digits long', '99999999999999999999'],
    ['three hundred digits long', '9'.repeat(300)],
    ['in full-width digits', '\uFF11'],
  ])('when the path id is %s, then 422 validation_failed naming the parameter', (_name, raw) => {
    const error = thrownBy(() => parseId('issue_id', raw));
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      code: 'validation_failed',
      status: 422,
      extra: { errors: [{ path: 'issue_id', message: expect.any(String) }] },
    });
  });
});

describe('parseBody', () => {
  const Widget = z.strictObject({ type: z.enum(['counter', 'chart']), size: z.number().int().min(1).optional() });
  const Dashboard = z.strictObject({
    name: z.string().min(1),
    shared: z.boolean().default(true),
    widgets: z.array(Widget).optional(),
  });

  const errorsOf = (body: unknown) => {
    const error = thrownBy(() => parseBody(Dashboard, body));
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'validation_failed', status: 422 });
    return (error as AppError).extra.errors;
  };

  test('when the body is valid, then the parsed value comes back with defaults applied', () => {
    expect(parseBody(Dashboard, { name: 'Team', widgets: [{ type: 'chart' }] })).toEqual({
      name: 'Team',
      shared: true,
      widgets: [{ type: 'chart' }],
    });
  });

  test('when the body has unknown fields, then one error per field names it as an unknown field', () => {
    expect(errorsOf({ name: 'Team', colour: 'red', owner_id: 5 })).toEqual([
      { path: 'colour', message: 'unknown field' },
      { path: 'owner_id', message: 'unknown field' },
    ]);
  });

  test('when a nested object has an unknown field, then its path is dot-joined', () => {
    expect(errorsOf({ name: 'Team', widgets: [{ type: 'chart' }, { type: 'counter', colour: 'red' }] })).toEqual([
      { path: 'widgets.1.colour', message: 'unknown field' },
    ]);
  });

  test('when a nested value is invalid, then its path is dot-joined', () => {
    expect(errorsOf({ name: 'Team', widgets: [{ type: 'pie' }] })).toEqual([{ path: 'widgets.0.type', message: expect.any(String) }]);
  });

  test('when several things are wrong, then every failing path is listed', () => {
    const errors = errorsOf({ name: '', shared: 'yes', widgets: [{ type: 'chart', size: 0 }], extra: 1 });
    expect(errors?.map((e) => e.path).sort()).toEqual(['extra', 'name', 'shared', 'widgets.0.size']);
  });

  test.each([
    ['an array', []],
    ['a string', 'name'],
    ['null', null],
    ['missing', undefined],
  ])('when the body is %s, then the error is at path (body)', (_name, body) => {
    expect(errorsOf(body)).toEqual([{ path: '(body)', message: expect.any(String) }]);
  });
});

describe('parseQuery', () => {
  const Page = z.strictObject({ after_id: z.coerce.number().int().min(0).default(0), limit: z.coerce.number().int().min(1).max(50).default(50) });
  const pathsOf = (query: Record<string, unknown>) => {
    const error = thrownBy(() => parseQuery(Page, query));
    expect(error).toMatchObject({ code: 'validation_failed', status: 422 });
    return (error as AppError).extra.errors!.map((e) => e.path).sort();
  };

  test('when the parameters are whole numbers in range, then they come back as numbers, absent ones as their defaults', () => {
    expect(parseQuery(Page, { after_id: '7', limit: '20' })).toEqual({ after_id: 7, limit: 20 });
    expect(parseQuery(Page, {})).toEqual({ after_id: 0, limit: 50 });
  });

  test.each<[string, Record<string, unknown>, string[]]>([
    ['empty', { limit: '' }, ['limit']],
    ['in exponent notation', { limit: '1e1' }, ['limit']],
    ['given twice', { limit: ['5', '6'] }, ['limit']],
    ['nested', { limit: { a: '1' } }, ['limit']],
    ['out of range', { limit: '51', after_id: '-1' }, ['after_id', 'limit']],
    ['unknown', { offset: '3' }, ['offset']],
  ])('when a parameter is %s, then 422 naming each once', (_name, query, paths) => {
    expect(pathsOf(query)).toEqual(paths);
  });
  test('when a parameter is named as text, then it is taken as text (still given once, still checked by the schema); the others stay digits', () => {
    const Log = z.strictObject({ status: z.enum(['pending', 'failed']).optional(), limit: z.coerce.number().int().min(1).max(50).default(50) });
    expect(parseQuery(Log, { status: 'failed', limit: '5' }, { text: ['status'] })).toEqual({ status: 'failed', limit: 5 });
    const refused = (query: Record<string, unknown>) => (thrownBy(() => parseQuery(Log, query, { text: ['status'] })) as AppError).extra.errors!.map((e) => e.path).sort();
    expect(refused({ status: ['failed', 'pending'] })).toEqual(['status']);
    expect(refused({ status: 'lost', limit: 'five' })).toEqual(['limit', 'status']);
    // Without the option, text is refused as a number would be.
    expect(thrownBy(() => parseQuery(Log, { status: 'failed' }))).toMatchObject({ code: 'validation_failed' });
  });
});
