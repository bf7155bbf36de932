export * from './internal';
export * from './problem';
export * from './roles';
export * from './users';
