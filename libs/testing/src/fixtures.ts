import { IssueCreate, type Category, type Issue, type Priority, type QueueMember } from '@tracker/contracts';
import type { UserPrincipal } from '@tracker/kit';
import type { FakeAccess } from './fake-access';

/**
 * One issue for every test that needs one, in the two shapes it travels in: as the API
 * answers it (`issueFixture`) and as integration events carry it (`issueStateFixture`).
 * Both start from a new issue's fields, as IssueCreate fills them in; a test names the
 * ids it needs and overrides what it is about.
 */

const AT = '2026-01-01T00:00:00.000Z';

/** What IssueCreate fills in for every field a new issue is not given, read from the schema itself. A fresh object each call. */
export const issueCreateDefaults = () => {
  const { queue_id: _queue, title: _title, ...defaults } = IssueCreate.parse({ queue_id: 1, title: 'x' });
  return defaults;
};

/** A new issue's fields (IssueCreate's defaults), at its first version. A fresh object each call. */
const newIssue = () => ({
  title: 'An issue',
  ...issueCreateDefaults(),
  spent_minutes: 0,
  version: 1,
  created_at: AT,
  updated_at: AT,
});

/** Where an issue stands: the ids every fixture names. */
type IssueIds = Pick<Issue, 'id' | 'key' | 'workspace_id' | 'queue_id' | 'status_id'>;

/** An issue as integration events carry it (IssueState in libs/events). */
export type IssueStateFixture = Omit<Issue, 'status' | 'position' | 'created_by' | 'description'> & {
  description?: string;
  status_category: Category;
};

/** An issue in an event, in an 'open' status unless told otherwise. */
export function issueStateFixture(fields: IssueIds & Partial<IssueStateFixture>): IssueStateFixture {
  return { ...newIssue(), status_category: 'open', ...fields };
}

/** An issue as the API answers it, in its queue's status 'Open' unless told otherwise. */
export function issueFixture(fields: IssueIds & Pick<Issue, 'position' | 'created_by'> & Partial<Issue>): Issue {
  return { ...newIssue(), status: { id: fields.status_id, name: 'Open', category: 'open' }, ...fields };
}

/** A queue member as the permission answers show them: an active workspace member granted `read-write` here, unless told otherwise. */
export function queueMemberFixture(fields: Pick<QueueMember, 'user_id' | 'name'> & Partial<QueueMember>): QueueMember {
  return {
    active: true,
    workspace_role: 'member',
    role: 'read-write',
    role_source: 'explicit',
    explicit_role: 'read-write',
    inherited_role: null,
    ...fields,
  };
}

/** A user of the fake access service, with the principal the gateway would sign for them. */
export interface Member {
  id: number;
  workspaceId: number;
  principal: UserPrincipal;
}

export interface Workspace {
  id: number;
  admin: Member;
}

/** A new user of `workspaceId` in the fake access service (a member, active, unless told otherwise). */
export function newMember(access: FakeAccess, workspaceId: number, options: { role?: 'admin' | 'member'; active?: boolean } = {}): Member {
  const id = access.addUser(workspaceId, { active: options.active });
  const workspaceRole = options.role ?? 'member';
  return { id, workspaceId, principal: { kind: 'user', userId: id, workspaceId, workspaceRole, tokenId: 1 } };
}

/** A new workspace in the fake access service, with its admin. */
export function newWorkspace(access: FakeAccess): Workspace {
  const id = access.addWorkspace();
  return { id, admin: newMember(access, id, { role: 'admin' }) };
}
