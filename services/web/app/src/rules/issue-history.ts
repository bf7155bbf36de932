import type { Schemas } from '@tracker/client';

type HistoryEntry = Schemas['HistoryEntry'];
type Value = HistoryEntry['from'];

/** How the page names what history entries hold: statuses, people and dates by their names. */
export interface Names {
  status: (id: number) => string;
  user: (id: number) => string;
  date: (isoDate: string) => string;
}

const FIELD_WORDS: Record<Exclude<HistoryEntry['field'], 'created'>, string> = {
  title: 'Title',
  description: 'Description',
  status_id: 'Status',
  position: 'Place in its status',
  assignee_id: 'Assignee',
  parent_id: 'Parent issue',
  priority: 'Priority',
  type: 'Type',
  labels: 'Labels',
  due_date: 'Due date',
  estimate_minutes: 'Estimate',
};

/** Long texts are cut for the list; the issue itself has the whole text. */
export const SHOWN_TEXT = 120;

const quoted = (text: string, cut: boolean) => {
  const shown = text.length > SHOWN_TEXT ? text.slice(0, SHOWN_TEXT) : text;
  return `“${shown}${cut || shown !== text ? '…' : ''}”`;
};

export const capitalised = (word: string) => (word ? word[0]!.toUpperCase() + word.slice(1) : word);

/** "90 minutes", "1 minute". */
export const minutesInWords = (minutes: number) => `${minutes.toLocaleString('en-US')} ${minutes === 1 ? 'minute' : 'minutes'}`;

/** A value of `field` in words; null when it is empty (cleared, or never set). */
function valueInWords(field: HistoryEntry['field'], value: Value, cut: boolean, names: Names): string | null {
  if (value === null) return null;
  if (Array.isArray(value)) return value.length ? value.join(', ') : null;
  switch (field) {
    case 'status_id':
      return names.status(Number(value));
    case 'assignee_id':
      return names.user(Number(value));
    case 'parent_id':
      return `issue #${value}`;
    case 'priority':
      return capitalised(String(value));
    case 'due_date':
      return names.date(String(value));
    case 'estimate_minutes':
      return minutesInWords(Number(value));
    case 'position':
      return String(value);
    case 'title':
    case 'description':
    case 'type':
      return String(value) === '' ? null : quoted(String(value), cut);
    default:
      return String(value);
  }
}

/** One history entry as a sentence after the person's name: "changed Priority from Normal to High". */
export function describeChange(entry: HistoryEntry, names: Names): string {
  if (entry.field === 'created') return 'created the issue';
  const what = FIELD_WORDS[entry.field];
  if (entry.field === 'position') return 'moved it within its status';
  const from = valueInWords(entry.field, entry.from, entry.from_truncated, names);
  const to = valueInWords(entry.field, entry.to, entry.to_truncated, names);
  if (entry.field === 'assignee_id') {
    if (to === null) return from === null ? 'left it unassigned' : `unassigned ${from}`;
    return from === null ? `assigned it to ${to}` : `reassigned it from ${from} to ${to}`;
  }
  if (from === null && to === null) return `changed ${what}`;
  if (from === null) return `set ${what} to ${to}`;
  if (to === null) return `cleared ${what} (was ${from})`;
  return `changed ${what} from ${from} to ${to}`;
}
