import type { ChainableCommander } from 'ioredis';
import { type TrustedKeys } from '@tracker/signing';
import { CACHE_FRESH_KEY, cacheEntryReader, type CacheEntryReaderOptions } from './cache-protocol';

/** One reply of a Redis pipeline: its error, or null and its result. Absent when Redis gave none. */
export type PipelineReply = [error: Error | null, result: unknown] | undefined;

export interface FreshCacheReader<T> {
  /**
   * Adds the two commands of one cache read to `pipeline`, in this order: `GET key`
   * and `EXISTS authz:fresh`. A caller may queue its own commands after them, so that
   * the read costs no extra round trip.
   */
  queue(pipeline: ChainableCommander, key: string): ChainableCommander;
  /**
   * The value from those two replies, or null (ask the access service): when either
   * command failed or gave no reply, when the cache is not fresh, when nothing is
   * stored, or when the access service did not sign the entry for `key` (or it expired).
   */
  read(key: string, entry: PipelineReply, fresh: PipelineReply): T | null;
}

/**
 * The one way every reader of the authorization caches reads them (the gateway's token
 * cache, the services' grant lists): an entry counts only while the freshness key
 * exists (libs/authz cache-protocol.ts: CACHE_FRESH_KEY) and only if `cacheEntryReader`
 * vouches for it. Anything else is a miss, never a decision.
 */
export function freshCacheReader<T>(trusted: TrustedKeys, options: CacheEntryReaderOptions<T>): FreshCacheReader<T> {
  const entries = cacheEntryReader<T>(trusted, options);
  return {
    queue: (pipeline, key) => pipeline.get(key).exists(CACHE_FRESH_KEY),
    read(key, entry, fresh) {
      const [entryError, raw] = entry ?? [new Error('no reply'), null];
      const [freshError, flag] = fresh ?? [new Error('no reply'), null];
      if (entryError || freshError || flag !== 1 || typeof raw !== 'string') return null;
      const read = entries.read(key, raw);
      return read.ok ? read.value : null;
    },
  };
}
