import { Me, Problem, User, UserChanges } from '../src';

describe('UserChanges', () => {
  test.each([{}, { name: 'A' }, { name: 'x'.repeat(100) }, { role: 'admin' }, { role: 'member', active: false }])(
    'when the body is %j, then it is accepted',
    (body) => expect(UserChanges.safeParse(body).success).toBe(true),
  );

  test.each([
    [{ name: '' }, 'name'],
    [{ name: 'x'.repeat(101) }, 'name'],
    [{ name: null }, 'name'],
    [{ name: 'a\u0000b' }, 'name'],
    [{ role: 'owner' }, 'role'],
    [{ active: 'true' }, 'active'],
    [{ id: 3 }, ''],
    [{ workspace_id: 2 }, ''],
  ])('when the body is %j, then it is rejected at %s', (body, path) => {
    const result = UserChanges.safeParse(body);
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path.join('.')).toBe(path);
  });
});

describe('response schemas', () => {
  test('a /me answer and a problem body validate', () => {
    expect(
      Me.safeParse({
        id: 1,
        workspace_id: 1,
        name: 'Ada',
        role: 'admin',
        active: true,
        email: 'ada@example.com',
        created_at: '2026-11-22T03:00:00.000Z',
        updated_at: '2026-11-22T03:00:00.000Z',
        workspace: { id: 1, name: 'Acme' },
      }).success,
    ).toBe(true);
    expect(Problem.safeParse({ type: 't', title: 'T', status: 404, detail: 'd', code: 'not_found' }).success).toBe(true);
  });

  test('a user made without an email answers `email: null`; an answer without the field does not validate', () => {
    const user = { id: 2, workspace_id: 1, name: 'Bob', role: 'member', active: true, email: null, created_at: '2026-11-22T03:00:00.000Z', updated_at: '2026-11-22T03:00:00.000Z' };
    expect(User.safeParse(user).success).toBe(true);
    const { email: _email, ...without } = user;
    expect(User.safeParse(without).success).toBe(false);
  });
});
