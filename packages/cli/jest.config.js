import { packageJestConfig } from '../../jest.preset.js';

export default {
  ...packageJestConfig('cli'),
  // The CLI is spawned against one real Temporal dev server and simulators on 127.0.0.1.
  globalSetup: '<rootDir>/../temporal-workflows/test/global-setup.js',
  globalTeardown: '<rootDir>/../temporal-workflows/test/global-teardown.js',
};
