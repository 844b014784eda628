// The package as n8n sees it: built and packed (the published tarball), scanned with n8n's community
// scanner (both legs: the sources and every file of the tarball), linted with `n8n-node lint`, and
// shaped by n8n's rules (no runtime dependencies, n8n-workflow as the only peer).
// @needs n8n-package
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
// @ts-expect-error the scanner ships plain .mjs without types
import { analyzePackage, SOURCE_FILE_PATTERNS } from '@n8n/scan-community-package/scanner/scanner.mjs';

const run = promisify(execFile);
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8'));

/** The tarball, built, packed and unpacked once by test/global-setup.mjs. */
const extracted = process.env.SELLING_KIT_E2E_PACKAGE_DIR!;

describe('the published package', () => {
  it('has no runtime dependencies and n8n-workflow as its only peer; ships dist only', () => {
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.peerDependencies).toEqual({ 'n8n-workflow': '*' });
    expect(pkg.keywords).toContain('n8n-community-node-package');
    const shipped = JSON.parse(readFileSync(join(extracted, 'package.json'), 'utf8'));
    expect(shipped.dependencies ?? {}).toEqual({});
    for (const file of [...shipped.n8n.nodes, ...shipped.n8n.credentials])
      expect(readdirSync(join(extracted, file, '..'))).toContain(file.split('/').pop());
    expect(readdirSync(extracted).sort()).toEqual(expect.arrayContaining(['dist', 'package.json']));
    expect(readdirSync(extracted)).not.toContain('nodes');
  });

  it("passes n8n's community scanner on the tarball (every .js in dist) and on the sources", async () => {
    // eslint-plugin-n8n-nodes-base fakes file names when NODE_ENV is "test" (jest's default): scan as n8n does.
    process.env.NODE_ENV = 'production';
    const tarballLeg = await analyzePackage(extracted, ['**/*.js', 'package.json']);
    expect(tarballLeg.details ?? '').toBe('');
    expect(tarballLeg.passed).toBe(true);
    const sourceLeg = await analyzePackage(PACKAGE_DIR, SOURCE_FILE_PATTERNS);
    expect(sourceLeg.details ?? '').toBe('');
    expect(sourceLeg.passed).toBe(true);
  });

  it('requires at run time only node: built-ins, its peer n8n-workflow and its own files (zod is vendored)', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : [],
      );
    const undeclared: string[] = [];
    for (const file of files(join(extracted, 'dist')))
      for (const [, spec] of readFileSync(file, 'utf8').matchAll(/\brequire\("([^"]+)"\)/g)) {
        if (spec!.startsWith('node:') || spec === 'n8n-workflow') continue;
        if (spec!.startsWith('.') && existsSync(join(file, '..', spec!))) continue;
        undeclared.push(`${file.slice(extracted.length + 1)} requires ${spec}`);
      }
    expect(undeclared).toEqual([]);
    expect(readdirSync(join(extracted, 'dist', 'vendor'))).toEqual(['zod.js']);
  });

  it('bundles the client core without got, process, globalThis or timers', () => {
    const bundle = readFileSync(join(extracted, 'dist/nodes/Marketplace/Marketplace.node.js'), 'utf8');
    expect(bundle).toContain('products.create'); // the operation table is in
    expect(bundle).not.toMatch(/require\("(got|undici|http|https)"\)/);
    for (const code of [bundle, readFileSync(join(extracted, 'dist/vendor/zod.js'), 'utf8')])
      expect(code).not.toMatch(/\b(process\.|globalThis|setTimeout\(|setInterval\()/);
  });

  it('passes `n8n-node lint`', async () => {
    const { stdout } = await run('pnpm', ['exec', 'n8n-node', 'lint'], {
      cwd: PACKAGE_DIR,
      env: { ...process.env, FORCE_COLOR: '0', NODE_ENV: 'production' },
    }).catch((e: { stdout: string; stderr: string }) => {
      throw new Error(`n8n-node lint failed:\n${e.stdout}\n${e.stderr}`);
    });
    expect(stdout).not.toMatch(/\b[1-9]\d* errors?\b/);
  }, 300_000);
});
