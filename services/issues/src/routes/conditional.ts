import { createHash } from 'node:crypto';
import type { VersionPrecondition } from '../domain/issue-update.rules';

/**
 * Conditional requests on an issue (README: Conditional requests). Its entity tag is
 * `"<version>-<first 16 hex digits of the SHA-256 of the answer>"`: the version lets
 * If-Match protect a change, the digest makes If-None-Match exact for a read whose
 * comments, links or subtasks changed while the version stayed.
 */
export const issueEtag = (version: number, answer: string) => `"${version}-${createHash('sha256').update(answer).digest('hex').slice(0, 16)}"`;

const entityTags = (header: string) => header.match(/(?:W\/)?"[^"]*"/g) ?? [];
const OUR_TAG = /^"(\d{1,10})-[0-9a-f]{16}"$/;

/** If-None-Match: whether the client already holds this answer (weak comparison; `*` holds any). */
export function clientHolds(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return entityTags(ifNoneMatch).some((tag) => tag.replace(/^W\//, '') === etag);
}

/**
 * If-Match as the versions it admits: `*` any; otherwise the versions of its strong tags
 * in this API's shape. A weak or foreign tag admits nothing (strong comparison, RFC 9110).
 */
export function ifMatchPrecondition(ifMatch: string | undefined): VersionPrecondition | undefined {
  if (ifMatch === undefined) return undefined;
  if (ifMatch.trim() === '*') return 'any';
  return entityTags(ifMatch).flatMap((tag) => {
    const match = OUR_TAG.exec(tag);
    return match ? [Number(match[1])] : [];
  });
}
