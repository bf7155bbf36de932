import { AppError } from '@tracker/kit';
import type { User, UserChanges } from '../src/domain/model';
import { assertActiveAdmin, assertKeepsAnActiveAdmin, assertWorkspaceAdmin, effectiveChanges } from '../src/domain/users.rules';

const aUser = (overrides: Partial<User> = {}): User => ({
  id: 1,
  workspaceId: 1,
  name: 'Ada',
  role: 'member',
  active: true,
  email: null,
  createdAt: new Date('2024-01-01T00:00:00Z'),
  updatedAt: new Date('2024-01-01T00:00:00Z'),
  ...overrides,
});
const activeAdmin = aUser({ role: 'admin' });
const inactiveAdmin = aUser({ role: 'admin', active: false });
const activeMember = aUser();
const inactiveMember = aUser({ active: false });

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('effectiveChanges', () => {
  test.each<[string, User, UserChanges, UserChanges]>([
    ['nothing is asked', activeMember, {}, {}],
    ['every field is asked with its current value', activeMember, { name: 'Ada', role: 'member', active: true }, {}],
    ['only the name differs', activeMember, { name: 'Grace', role: 'member', active: true }, { name: 'Grace' }],
    ['only the role differs', activeMember, { name: 'Ada', role: 'admin' }, { role: 'admin' }],
    ['only active differs', activeMember, { active: false, role: 'member' }, { active: false }],
    ['everything differs', activeMember, { name: 'Grace', role: 'admin', active: false }, { name: 'Grace', role: 'admin', active: false }],
    ['an inactive user is reactivated', inactiveMember, { active: true }, { active: true }],
  ])('when %s, then only the real changes remain', (_name, user, changes, expected) => {
    expect(effectiveChanges(user, changes)).toEqual(expected);
  });

  test('when a name differs only in case, then it is a change', () => {
    expect(effectiveChanges(activeMember, { name: 'ada' })).toEqual({ name: 'ada' });
  });
});

describe('assertKeepsAnActiveAdmin', () => {
  test.each<[string, User, UserChanges, number]>([
    ['the last active admin is demoted', activeAdmin, { role: 'member' }, 1],
    ['the last active admin is deactivated', activeAdmin, { active: false }, 1],
    ['the last active admin is demoted and deactivated', activeAdmin, { role: 'member', active: false }, 1],
    ['an active admin is demoted while the count says none is left', activeAdmin, { role: 'member' }, 0],
  ])('when %s, then 409 last_active_admin', (_name, user, changes, activeAdmins) => {
    const error = thrownBy(() => assertKeepsAnActiveAdmin(user, changes, activeAdmins));
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'last_active_admin', status: 409 });
  });

  test.each<[string, User, UserChanges, number]>([
    ['one of two active admins is demoted', activeAdmin, { role: 'member' }, 2],
    ['one of two active admins is deactivated', activeAdmin, { active: false }, 2],
    ['one of three active admins is demoted and deactivated', activeAdmin, { role: 'member', active: false }, 3],
    ['the last active admin is renamed', activeAdmin, { name: 'Grace' }, 1],
    ['the last active admin is asked to stay what they are', activeAdmin, { role: 'admin', active: true }, 1],
    ['a member is deactivated', activeMember, { active: false }, 1],
    ['a member is promoted', activeMember, { role: 'admin' }, 1],
    ['an inactive admin is demoted', inactiveAdmin, { role: 'member' }, 1],
    ['an inactive admin stays inactive', inactiveAdmin, { active: false }, 1],
    ['an inactive admin is reactivated', inactiveAdmin, { active: true }, 1],
  ])('when %s, then it is allowed', (_name, user, changes, activeAdmins) => {
    expect(() => assertKeepsAnActiveAdmin(user, changes, activeAdmins)).not.toThrow();
  });
});

describe('assertActiveAdmin', () => {
  test.each<[string, Pick<User, 'role' | 'active'> | null]>([
    ['an active member', activeMember],
    ['an inactive member', inactiveMember],
    ['an inactive admin', inactiveAdmin],
    ['nobody (null)', null],
  ])('when the actor is %s, then 403 forbidden', (_name, actor) => {
    const error = thrownBy(() => assertActiveAdmin(actor));
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'forbidden', status: 403 });
  });

  test('when the actor is an active admin, then it is allowed', () => {
    expect(() => assertActiveAdmin(activeAdmin)).not.toThrow();
  });
});

describe('assertWorkspaceAdmin', () => {
  test.each(['member', 'Admin', 'ADMIN', 'admin ', ''])('when the caller\'s workspace role is %j, then 403 forbidden', (workspaceRole) => {
    const error = thrownBy(() => assertWorkspaceAdmin({ workspaceRole }));
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'forbidden', status: 403 });
  });

  test('when the caller is a workspace admin, then it is allowed', () => {
    expect(() => assertWorkspaceAdmin({ workspaceRole: 'admin' })).not.toThrow();
  });
});
