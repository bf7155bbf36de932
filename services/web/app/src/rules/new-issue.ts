/**
 * A refused new issue, in words, next to the field that caused it where the answer says
 * which (a 422's `errors[].path`), else for the form as a whole.
 */
export type IssueFormField = 'queue' | 'title' | 'description';
export type IssueFormProblems = Partial<Record<IssueFormField | 'form', string>>;

/** The API's body paths and the form's fields. */
const FIELD_OF_PATH: Record<string, IssueFormField> = { queue_id: 'queue', title: 'title', description: 'description' };

/** "must be at most 500 characters" → "Must be at most 500 characters." */
const sentence = (message: string) => {
  const text = message.trim();
  if (!text) return text;
  return `${text[0]!.toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`;
};

/** The problem told when a title is missing: the form says so before sending anything. */
export const MISSING_TITLE = 'Give the issue a title: one line saying what it is about.';

export function newIssueProblems(problem: { code: string; detail: string; errors?: Array<{ path: string; message: string }> }): IssueFormProblems {
  if (problem.code === 'forbidden') return { queue: 'You may not create issues in this queue (it needs the read-write or admin role). Choose another queue.' };
  if (problem.code !== 'validation_failed' || !problem.errors?.length) return { form: problem.detail };
  const problems: IssueFormProblems = {};
  for (const { path, message } of problem.errors) {
    const field = FIELD_OF_PATH[path.replace(/^\(body\)\.?/, '').split(/[.[]/)[0] ?? ''];
    if (field) problems[field] ??= sentence(message);
    else problems.form ??= problem.detail;
  }
  return problems;
}

/** The first field with a problem, in the form's order: it takes the focus. */
export const firstProblemField = (problems: IssueFormProblems): IssueFormField | undefined =>
  (['queue', 'title', 'description'] as const).find((field) => problems[field]);
