export * from './instances';
export * from './users';
export * from './events';
export * from './audit';
export * from './idempotency';
export * from './relations';
export * from './signing';
export * from './sessions';
