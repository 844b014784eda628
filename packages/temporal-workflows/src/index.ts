export * from './client.ts';
export * from './worker.ts';
export type * from './types.ts';
export * from './codec.ts';
export * from './codec-server.ts';
export * from './schedules.ts';
export * from './search-attributes.ts';
