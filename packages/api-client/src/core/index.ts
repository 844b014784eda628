// The transport-free core: schemas, the operation table and rate-limit facts. Safe inside n8n: no
// Node built-ins, no `process`, no timers.
export * from './schemas/index.ts';
export * from './operations.ts';
export * from './rate-limits.ts';
