import type { Problem } from '../http';
import { placeProblem, type FormProblems } from './problems';

/**
 * A refused new issue, in words, next to the field that caused it where the answer says
 * which (a 422's `errors[].path`), else for the form as a whole.
 */
export type IssueFormField = 'queue' | 'title' | 'description';

const FIELDS = ['queue', 'title', 'description'] as const;

/** The problem told when a title is missing: the form says so before sending anything. */
export const MISSING_TITLE = 'Give the issue a title: one line saying what it is about.';

export const newIssueProblems = (problem: Pick<Problem, 'code' | 'detail' | 'errors'>): FormProblems<IssueFormField> =>
  placeProblem(problem, FIELDS, {
    byCode: { forbidden: { field: 'queue', words: 'You may not create issues in this queue (it needs the read-write or admin role). Choose another queue.' } },
    fieldOfPath: { queue_id: 'queue' },
  });
