export * from './config';
export * from './events';
export * from './outbox';
export { deadLetterExchangeOf, reconnectDelay, type EventsLogger, type ReconnectOptions } from './broker';
export * from './relay';
export * from './prune';
export * from './consumer';
export * from './signature';
export * from './metrics';
