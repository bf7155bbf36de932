import type { Problem } from '../http';

/**
 * A refusal placed on a form: each of a 422's `errors` goes to the field its path names,
 * the rest (a `(body)`-level error such as a limit, a path no field answers for, any
 * other refusal) is the problem's detail, said once for the whole form.
 */
export type FieldProblems<F extends string> = Partial<Record<F, string>>;

export interface FormProblems<F extends string> {
  fields: FieldProblems<F>;
  /** Said once for the whole form: what no field explains. */
  general: string;
}

export interface PlacingWords<F extends string> {
  /** The form's words for a field the service refused (else the service's own message). */
  fieldWords?: FieldProblems<F>;
  /** A code known to concern one field, with the words for it. */
  byCode?: Record<string, { field: F; words: string }>;
  /** A body property named otherwise than its field, such as `queue_id` for `queue`. */
  fieldOfPath?: Record<string, F>;
}

/** The body property a path is about: `(body).name`, `name`, `filters.queue_id[0]` → `name`, `name`, `filters`. */
export const pathField = (path: string): string => path.replace(/^\(body\)\.?/, '').split(/[.[]/)[0] ?? '';

export function placeProblem<F extends string>(problem: Pick<Problem, 'code' | 'detail' | 'errors'>, fields: readonly F[], words: PlacingWords<F> = {}): FormProblems<F> {
  const known = words.byCode?.[problem.code];
  if (known) return { fields: { [known.field]: known.words } as FieldProblems<F>, general: '' };
  const placed: FieldProblems<F> = {};
  let unplaced = false;
  if (problem.code === 'validation_failed' && problem.errors?.length) {
    for (const error of problem.errors) {
      const property = pathField(error.path);
      const field = words.fieldOfPath?.[property] ?? fields.find((name) => name === property);
      if (field) placed[field] ??= words.fieldWords?.[field] ?? sentence(error.message);
      else unplaced = true;
    }
  } else {
    unplaced = true;
  }
  return { fields: placed, general: unplaced ? problem.detail : '' };
}

export const hasProblems = <F extends string>(problems: FieldProblems<F>): boolean => Object.values(problems).some(Boolean);

/** "must be at most 500 characters" → "Must be at most 500 characters." */
function sentence(text: string): string {
  const trimmed = text.trim();
  if (!trimmed) return trimmed;
  const capital = trimmed[0]!.toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}
