export * from './database';
export * from './infra';
export * from './redis';
export * from './processes';
export * from './tcp-proxy';
export * from './amqp';
export * from './fake-access';
export * from './system';
