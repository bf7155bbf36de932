export * from './app';
export * from './config';
export * from './errors';
export * from './logger';
export * from './principal';
export * from './server';
export * from './tokens';
export * from './validation';
