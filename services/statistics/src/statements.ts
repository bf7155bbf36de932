/**
 * `@tracker/statistics/statements`: the service's own statements, for what measures them
 * without the service around them (the bench's floors and its plan checks, bench/src/).
 * A service has no main entry; this is the one part of it another package may import.
 */
export { replicaReadsRepository, statisticsSql } from './data-access/replica-reads.repository';
