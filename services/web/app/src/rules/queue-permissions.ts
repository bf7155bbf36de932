/**
 * A queue's permissions as its page shows them: the roles in words, who has which and
 * where it comes from (granted on the queue, or inherited as a workspace admin), the people
 * a role can be granted to, the history of changes in words, and how the history's pages
 * join up. The service computes the roles; this only says them.
 */

export type QueueRole = 'read-only' | 'read-write' | 'admin';

/** Lowest first: `read-only` < `read-write` < `admin`. */
export const QUEUE_ROLES: readonly QueueRole[] = ['read-only', 'read-write', 'admin'];

export const ROLE_WORDS: Record<QueueRole, string> = {
  'read-only': 'Read only',
  'read-write': 'Read and write',
  admin: 'Admin',
};

/** The roles as a select offers them, lowest first. */
export const ROLE_CHOICES: ReadonlyArray<{ value: QueueRole; label: string }> = QUEUE_ROLES.map((value) => ({ value, label: ROLE_WORDS[value] }));

export const ROLE_MEANING: Record<QueueRole, string> = {
  'read-only': 'sees the queue and its issues',
  'read-write': 'also creates and changes issues, comments and logs time',
  admin: 'also changes the queue’s settings and who may use it',
};

/** A member of the queue as GET /queues/{id}/permissions answers it. */
export interface QueueMemberLike {
  user_id: number;
  name: string;
  active: boolean;
  workspace_role: 'admin' | 'member';
  role: QueueRole | null;
  role_source: 'explicit' | 'inherited' | null;
  explicit_role: QueueRole | null;
  inherited_role: 'admin' | null;
}

export interface MemberRow {
  userId: number;
  name: string;
  active: boolean;
  /** The role in force on the queue. */
  effective: QueueRole;
  /** The role granted on this queue: what the row's select changes and Revoke removes; null: none. */
  explicit: QueueRole | null;
  /** Admin of every queue as a workspace admin: not granted here, not revocable here. */
  inherited: boolean;
  /** Where the role comes from, in words. */
  source: string;
}

/**
 * The people with access, by name: each with the role in force and where it comes from.
 * Members without any role (the queue is hidden from them) are left out.
 */
export function memberRows(members: readonly QueueMemberLike[]): MemberRow[] {
  const rows: MemberRow[] = [];
  for (const member of members) {
    const inherited = member.inherited_role === 'admin';
    const effective = member.role ?? (inherited ? 'admin' : member.explicit_role);
    if (!effective) continue;
    let source = 'Granted on this queue';
    if (inherited) {
      source = member.explicit_role
        ? `Workspace admin, so admin of every queue; also granted ${ROLE_WORDS[member.explicit_role]} here`
        : 'Workspace admin, so admin of every queue';
    }
    rows.push({ userId: member.user_id, name: member.name, active: member.active, effective, explicit: member.explicit_role, inherited, source });
  }
  return rows.sort(byName);
}

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
const byName = (a: { name: string; userId: number }, b: { name: string; userId: number }) => collator.compare(a.name, b.name) || a.userId - b.userId;

export interface UserLike {
  id: number;
  name: string;
  email: string | null;
  active: boolean;
}

/**
 * Whom a role can be granted to: the active people of the workspace, by name; a name two
 * people share is told apart by email.
 */
export function userChoices(users: readonly UserLike[]): Array<{ value: number; label: string }> {
  const active = users.filter((user) => user.active).map((user) => ({ ...user, userId: user.id }));
  const keyOf = (name: string) => name.trim().toLocaleLowerCase();
  const count = new Map<string, number>();
  for (const user of active) count.set(keyOf(user.name), (count.get(keyOf(user.name)) ?? 0) + 1);
  return active.sort(byName).map((user) => ({
    value: user.id,
    label: count.get(keyOf(user.name))! > 1 ? `${user.name} (${user.email ?? `user ${user.id}`})` : user.name,
  }));
}

/** One grant, change or revoke, as GET …/permissions and …/permissions/history answer it. */
export interface PermissionChangeLike {
  user_id: number;
  from: QueueRole | null;
  to: QueueRole | null;
  actor_id: number;
  at: string;
}

/** A change in words: whose role, what happened to it, and who did it. */
export function describeChange(change: PermissionChangeLike, nameOf: (userId: number) => string): { person: string; change: string; by: string } {
  let words: string;
  if (change.from === null && change.to !== null) words = `Granted ${ROLE_WORDS[change.to]}`;
  else if (change.from !== null && change.to === null) words = `Revoked ${ROLE_WORDS[change.from]}`;
  else if (change.from !== null && change.to !== null) words = `Changed from ${ROLE_WORDS[change.from]} to ${ROLE_WORDS[change.to]}`;
  else words = 'No role before or after';
  return { person: nameOf(change.user_id), change: words, by: nameOf(change.actor_id) };
}

/** A name for a user id: theirs when the workspace lists them, else words that still say who. */
export function namesOf(users: readonly { id: number; name: string }[]): (userId: number) => string {
  const names = new Map(users.map((user) => [user.id, user.name]));
  return (userId) => names.get(userId) ?? `User ${userId}`;
}

/**
 * The history as shown, oldest first: the changes paged from the oldest (`earlier`), then
 * a gap of `hiddenCount`, then the newest ones the permissions read embeds (`newest`).
 * A change keeps its place in the oldest-first order for good (ids only grow), so the
 * first `total - newest.length` changes are exactly the ones before the embedded newest:
 * asking pages no larger than what is still hidden never overlaps them. (`total` is
 * counted up to 10,000; past that the oldest ones stay hidden.)
 */
export interface HistoryView<C> {
  newest: C[];
  total: number;
  earlier: C[];
  /** Where the next page of `earlier` starts (`after_id`). */
  afterId: number;
}

/** The largest page the history route answers. */
export const HISTORY_PAGE_MAX = 50;

export const historyView = <C>(newest: C[], total: number): HistoryView<C> => ({ newest, total: Math.max(total, newest.length), earlier: [], afterId: 0 });

/** How many changes lie between the earlier pages and the newest ones. */
export const hiddenCount = (view: HistoryView<unknown>): number => Math.max(0, view.total - view.newest.length - view.earlier.length);

/** The next page to ask for, or null when nothing is hidden. */
export function nextHistoryPage(view: HistoryView<unknown>): { after_id: number; limit: number } | null {
  const hidden = hiddenCount(view);
  return hidden > 0 ? { after_id: view.afterId, limit: Math.min(HISTORY_PAGE_MAX, hidden) } : null;
}

/** The view with one more earlier page; a last page (no next) closes the gap whatever the count said. */
export function withEarlierPage<C>(view: HistoryView<C>, page: { items: C[]; next_after_id: number | null }): HistoryView<C> {
  const earlier = [...view.earlier, ...page.items.slice(0, hiddenCount(view))];
  if (page.next_after_id === null) return { ...view, earlier, total: earlier.length + view.newest.length };
  return { ...view, earlier, afterId: page.next_after_id };
}
