// Builds dist/ the way n8n loads it: one CommonJS file per node and credential, with the client core and
// zod bundled in (the package has no runtime dependencies: nothing may rely on n8n's own hoisted copies)
// and only n8n-workflow, the package's peer, left to n8n. Icons and codex files are copied.
import { build } from 'esbuild';
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });

const entries = [
  ...readdirSync(join(root, 'credentials'))
    .filter((f) => f.endsWith('.credentials.ts'))
    .map((f) => join(root, 'credentials', f)),
  ...readdirSync(join(root, 'nodes')).map((dir) => join(root, 'nodes', dir, `${dir}.node.ts`)),
];

// zod, once for every entry point: dist/vendor/zod.js. Its cross-copy registry lives on `globalThis`,
// which code running inside n8n must not touch (n8n's scanner); this private copy keeps it in a
// module-local object instead.
const VENDOR_ZOD = join(dist, 'vendor', 'zod.js');
await build({
  entryPoints: { 'vendor/zod': 'zod/v4' },
  absWorkingDir: join(root, '..', 'api-client'),
  outdir: dist,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  define: { globalThis: '__zodGlobal' },
  banner: { js: 'const __zodGlobal = {};' },
  logLevel: 'warning',
  legalComments: 'none',
});

/** Each entry point requires the vendored zod by its path relative to its own output file. */
const vendorZod = (outfile) => ({
  name: 'vendor-zod',
  setup(b) {
    b.onResolve({ filter: /^zod(\/.*)?$/ }, () => {
      const path = relative(dirname(outfile), VENDOR_ZOD).split(sep).join('/');
      return { path: path.startsWith('.') ? path : `./${path}`, external: true };
    });
  },
});

for (const entry of entries) {
  const outfile = join(dist, relative(root, entry)).replace(/\.ts$/, '.js');
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['n8n-workflow'],
    plugins: [vendorZod(outfile)],
    logLevel: 'warning',
    legalComments: 'none',
  });
}

for (const dir of readdirSync(join(root, 'nodes'))) {
  for (const f of readdirSync(join(root, 'nodes', dir)).filter((f) => /\.(svg|png|json)$/.test(f))) {
    mkdirSync(join(dist, 'nodes', dir), { recursive: true });
    cpSync(join(root, 'nodes', dir, f), join(dist, 'nodes', dir, f));
  }
}
console.log(`built ${entries.length} entry points into dist/`);
