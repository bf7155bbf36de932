export * from './events';
export * from './outbox';
export { backoffDelay, deadLetterExchangeOf, type EventsLogger, type ReconnectOptions } from './broker';
export * from './relay';
export * from './consumer';
export * from './signature';
