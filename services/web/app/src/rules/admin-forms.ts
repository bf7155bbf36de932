import type { Problem } from '../http';
import { placeProblem, type FieldProblems, type FormProblems } from './problems';

/**
 * The admin forms (invite a colleague, create a queue, a queue's settings): what is wrong
 * with what was typed, said before anything is sent, and a refusal's words placed next to
 * the field it is about (a 422's `errors[].path`, or a code known to concern one field).
 * The service decides; checking first only spares a round trip for the obvious.
 */

/** The limits the contract sets (docs: spec Limits, decisions "Queues and statuses", the OpenAPI schema). */
export const ADMIN_LIMITS = {
  nameMax: 100,
  emailMax: 254,
  queueKeyMin: 2,
  queueKeyMax: 12,
  queueDescriptionMax: 10_000,
} as const;

/** 2 to 12 letters, digits and `_`, starting with a letter (stored upper-case). */
export const QUEUE_KEY_PATTERN = /^[A-Za-z][A-Za-z0-9_]{1,11}$/;

const KEY_RULE = 'A key is 2 to 12 letters, digits or _, starting with a letter, such as OPS or WEB_2.';

export type QueueField = 'key' | 'name' | 'description';

function nameProblem(name: string, what: string): string | undefined {
  const trimmed = name.trim();
  if (!trimmed) return `Give ${what} a name.`;
  if (trimmed.length > ADMIN_LIMITS.nameMax) return `A name is at most ${ADMIN_LIMITS.nameMax} characters (this one has ${trimmed.length}).`;
  return undefined;
}

function descriptionProblem(description: string): string | undefined {
  if (description.length > ADMIN_LIMITS.queueDescriptionMax) return `A description is at most ${ADMIN_LIMITS.queueDescriptionMax.toLocaleString('en')} characters (this one has ${description.length.toLocaleString('en')}).`;
  return undefined;
}

/** A new queue's key, name and description, checked before they are sent. */
export function checkNewQueue(input: { key: string; name: string; description: string }): FieldProblems<QueueField> {
  const key = input.key.trim();
  const problems: FieldProblems<QueueField> = {
    key: !key ? 'Give the queue a key, such as OPS: it starts every issue key of the queue.' : QUEUE_KEY_PATTERN.test(key) ? undefined : `“${key}” cannot be a key. ${KEY_RULE}`,
    name: nameProblem(input.name, 'the queue'),
    description: descriptionProblem(input.description),
  };
  return dropEmpty(problems);
}

/** A queue's new settings, checked before they are sent. */
export function checkQueueSettings(input: { name: string; description: string }): FieldProblems<'name' | 'description'> {
  return dropEmpty({ name: nameProblem(input.name, 'the queue'), description: descriptionProblem(input.description) });
}

/** The creation's refusal, next to its field: a taken key, a key the service will not take. */
export function newQueueProblems(problem: Problem, key: string): FormProblems<QueueField> {
  const upper = key.trim().toUpperCase();
  return placeProblem(problem, ['key', 'name', 'description'] as const, {
    byCode: { queue_key_taken: { field: 'key', words: `There is already a queue with the key ${upper} (keys are the same whatever their case). Choose another key.` } },
    fieldWords: { key: `“${key.trim()}” cannot be a key. ${KEY_RULE}` },
  });
}

export type InviteField = 'name' | 'email' | 'role';

/** An email needs something before and after one @, and no spaces; the service has the last word. */
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+$/;

/** An invitation's name and email, checked before they are sent. */
export function checkInvite(input: { name: string; email: string }): FieldProblems<InviteField> {
  const email = input.email.trim();
  return dropEmpty({
    name: nameProblem(input.name, 'your colleague'),
    email: !email
      ? 'Give their email: it is the name they sign in with.'
      : email.length > ADMIN_LIMITS.emailMax
        ? `An email is at most ${ADMIN_LIMITS.emailMax} characters.`
        : EMAIL_SHAPE.test(email)
          ? undefined
          : `“${email}” is not an email address, such as name@example.com.`,
  });
}

/** The invitation's refusal, next to its field: an email someone has, one the service will not take. */
export function inviteProblems(problem: Problem): FormProblems<InviteField> {
  return placeProblem(problem, ['name', 'email', 'role'] as const, {
    byCode: { email_taken: { field: 'email', words: 'Someone already has this email (in this or another workspace): each person signs in with an email of their own.' } },
    fieldWords: { email: 'This is not an email address Tracker takes: check it, such as name@example.com.' },
  });
}

function dropEmpty<F extends string>(problems: Partial<Record<F, string | undefined>>): FieldProblems<F> {
  const kept: FieldProblems<F> = {};
  for (const [field, words] of Object.entries(problems) as Array<[F, string | undefined]>) if (words) kept[field] = words;
  return kept;
}
