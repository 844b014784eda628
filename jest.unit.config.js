// `pnpm test:unit` / `pnpm test:watch`: the tests that need nothing but Node (no server, no build, no
// browser; jest.preset.js says how a test declares a need). The full suite is jest.config.js.
import full from './jest.config.js';

/** @type {import('jest').Config} */
export default {
  ...full,
  projects: full.projects.filter((project) => project.displayName.endsWith(':unit')),
};
