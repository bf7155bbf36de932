export * from './search-conditions';
