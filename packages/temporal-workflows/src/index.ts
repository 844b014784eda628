export * from './client.ts';
export * from './worker.ts';
export type * from './types.ts';
