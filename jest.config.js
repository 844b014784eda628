// One jest run over every package so the summary line covers the whole workspace.
// Packages join this list when they have tests (temporal-workflows and n8n-nodes come with later issues).
const packages = ['api-client', 'simulator'];

/** @type {import('jest').Config} */
export default {
  projects: packages.map((name) => `<rootDir>/packages/${name}`),
  testTimeout: 60_000,
};
