// One jest run over every package so the summary line covers the whole workspace.
// Packages join this list when they have tests (n8n-nodes comes with a later issue).
const packages = ['api-client', 'simulator', 'temporal-workflows', 'cli'];

/** @type {import('jest').Config} */
export default {
  projects: packages.map((name) => `<rootDir>/packages/${name}`),
  testTimeout: 60_000,
};
