import { packageJestConfig } from '../../jest.preset.js';

export default {
  ...packageJestConfig('temporal-workflows'),
  // One real Temporal dev server for the whole run (never a mocked Temporal).
  globalSetup: '<rootDir>/test/global-setup.js',
  globalTeardown: '<rootDir>/test/global-teardown.js',
};
