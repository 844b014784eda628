// One jest run over every package (the summary line covers the whole workspace): CI and `pnpm test`.
// Each package is two projects (jest.preset.js): its unit tests, and the tests that need a server, a
// build or a browser, whose global set-up runs only when one of them is selected.
import { PACKAGE_NAMES, packageProjects } from './jest.preset.js';

/** @type {import('jest').Config} */
export default {
  projects: PACKAGE_NAMES.flatMap(packageProjects),
  testTimeout: 60_000,
  // Two test files at once, also on a 2-core machine (jest's default there is one): most suites wait on
  // Temporal timers, servers and browsers. Measured on a fresh clone of this repository on 2 cores: 171
  // suites in 2,188 s, against 3,431 s one at a time.
  maxWorkers: 2,
  // The contract test: the simulator records what it answers, the teardown checks it against OpenAPI.
  globalSetup: '<rootDir>/scripts/jest/contract-setup.mjs',
  globalTeardown: '<rootDir>/scripts/jest/contract-teardown.mjs',
};
