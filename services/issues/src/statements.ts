/**
 * `@tracker/issues/statements`: the service's own statements, for what measures them
 * without the service around them (the bench's floors and its plan checks, bench/src/).
 * A service has no main entry; this is the one part of it another package may import.
 */
export { issueReadsRepository } from './data-access/issue-reads.repository';
export { issuesRepository } from './data-access/issues.repository';
export { searchRepository, searchSql } from './data-access/search.repository';
export { formatIssueKey } from './domain/issue-key.rules';
