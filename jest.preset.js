// Shared jest settings for the packages: TypeScript through swc, native ESM (run with
// --experimental-vm-modules, see the root "test" script), tests under test/.
/** @param {string} displayName @returns {import('jest').Config} */
export function packageJestConfig(displayName) {
  return {
    displayName,
    testEnvironment: 'node',
    extensionsToTreatAsEsm: ['.ts'],
    testMatch: ['<rootDir>/test/**/*.test.ts'],
    transform: {
      '^.+\\.ts$': [
        '@swc/jest',
        {
          jsc: { parser: { syntax: 'typescript' }, target: 'es2023' },
          module: { type: 'es6' },
        },
      ],
    },
  };
}
