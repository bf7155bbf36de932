export * from './filters';
export * from './internal';
export * from './issues';
export * from './problem';
export * from './queues';
export * from './roles';
export * from './users';
