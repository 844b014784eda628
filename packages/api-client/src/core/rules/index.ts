// The spec's stateless rules, shared by the client (local pre-validation) and the simulator.
export * from './violations.ts';
export * from './money.ts';
export * from './products.ts';
export * from './offers.ts';
export * from './refunds.ts';
