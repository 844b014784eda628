// Builds dist/ the way n8n loads it: one CommonJS file per node and credential, with the client core
// bundled in (the package has no runtime dependencies) and n8n-workflow and zod left to n8n's own
// copies (zod/v4 resolves to n8n's zod, which ships that entry). Icons and codex files are copied.
import { build } from 'esbuild';
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
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

await build({
  entryPoints: entries,
  outbase: root,
  outdir: dist,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['n8n-workflow', 'zod', 'zod/*'],
  logLevel: 'warning',
  legalComments: 'none',
});

for (const dir of readdirSync(join(root, 'nodes'))) {
  for (const f of readdirSync(join(root, 'nodes', dir)).filter((f) => /\.(svg|png|json)$/.test(f))) {
    mkdirSync(join(dist, 'nodes', dir), { recursive: true });
    cpSync(join(root, 'nodes', dir, f), join(dist, 'nodes', dir, f));
  }
}
console.log(`built ${entries.length} entry points into dist/`);
