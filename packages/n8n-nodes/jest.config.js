import { packageJestConfig } from '../../jest.preset.js';

const base = packageJestConfig('n8n-nodes');

// Tests are .mts: `n8n-node lint` (n8n's rules for code that runs inside n8n) covers every .ts file of
// the package, and test code legitimately spawns processes and reads files.
export default {
  ...base,
  testMatch: ['<rootDir>/test/**/*.test.mts'],
  moduleFileExtensions: ['ts', 'mts', 'js', 'mjs', 'cjs', 'json'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.m?ts$': base.transform['^.+\\.ts$'] },
  globalSetup: '<rootDir>/test/global-setup.mjs',
  // The end-to-end tests start a real n8n (and Temporal): generous time.
  testTimeout: 600_000,
};
