import type { QueueRole } from '@tracker/contracts';
import { accessOf, callerAccess, canAdminister, canWrite, grantsOf, type GrantsSource } from '../src';

const grants = new Map<number, QueueRole>([
  [1, 'read-only'],
  [2, 'read-write'],
  [3, 'admin'],
]);

describe('caller access', () => {
  test('a member has exactly the explicit role on each queue, and none elsewhere', () => {
    const access = callerAccess('member', grants);
    expect(access.roleOn(1)).toEqual({ role: 'read-only', role_source: 'explicit' });
    expect(access.roleOn(3)).toEqual({ role: 'admin', role_source: 'explicit' });
    expect(access.roleOn(4)).toBeNull();
    expect([1, 2, 3, 4].map(access.canRead)).toEqual([true, true, true, false]);
    expect([1, 2, 3, 4].map((q) => canWrite(access.roleOn(q)))).toEqual([false, true, true, false]);
    expect([1, 2, 3, 4].map((q) => canAdminister(access.roleOn(q)))).toEqual([false, false, true, false]);
    expect(access.grantedQueueIds()).toEqual([1, 2, 3]);
  });

  test('a workspace admin inherits admin on every queue, whatever the grants', () => {
    const access = callerAccess('admin', grants);
    expect(access.roleOn(1)).toEqual({ role: 'admin', role_source: 'inherited' });
    expect(access.roleOn(99)).toEqual({ role: 'admin', role_source: 'inherited' });
  });

  test("a workspace admin's grants are not even looked up; a member's are, on every request", async () => {
    const asked: number[] = [];
    const source: GrantsSource = { explicitGrants: async (userId) => (asked.push(userId), grants) };
    await accessOf(source, { userId: 1, workspaceId: 5, workspaceRole: 'admin', requestId: null });
    await accessOf(source, { userId: 2, workspaceId: 5, workspaceRole: 'member', requestId: null });
    await accessOf(source, { userId: 2, workspaceId: 5, workspaceRole: 'member', requestId: null });
    expect(asked).toEqual([2, 2]);
  });
});

describe('grants from an ACL', () => {
  test('an ACL of another workspace or an unknown user gives no grants', () => {
    expect(grantsOf({ user_id: 1, workspace_id: 2, grants: [{ queue_id: 1, role: 'admin' }] }, 3).size).toBe(0);
    expect(grantsOf(null, 3).size).toBe(0);
  });

  test('a queue listed twice keeps the higher role', () => {
    const acl = { user_id: 1, workspace_id: 2, grants: [{ queue_id: 1, role: 'admin' as const }, { queue_id: 1, role: 'read-only' as const }, { queue_id: 2, role: 'read-only' as const }, { queue_id: 2, role: 'read-write' as const }] };
    expect([...grantsOf(acl, 2)]).toEqual([
      [1, 'admin'],
      [2, 'read-write'],
    ]);
  });
});
