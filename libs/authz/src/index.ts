export * from './access-client';
export * from './acl-reader';
export * from './cache-protocol';
export * from './fresh-cache-reader';
export * from './redis';
export * from './access-policy';
export * from './seen-tickets';
export * from './tokens';
