// The transport-free code (src/core and src/client) must load inside n8n: it may import nothing but
// zod/v4, node:crypto and relative files, and must not touch process, globalThis or timers (n8n's
// community-package scanner rejects them).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../src/', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const safe = [...files(join(root, 'core')), ...files(join(root, 'client'))];
const FORBIDDEN_GLOBALS =
  /\b(process|globalThis|global|setTimeout|setInterval|setImmediate|clearTimeout|clearInterval|queueMicrotask|__dirname|__filename|require)\b/;
const ALLOWED_IMPORT = /^(zod\/v4|node:crypto|\.{1,2}\/.*)$/;

/** Source without comments and string contents, so prose and messages do not count. */
function code(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:])\/\/.*$/gm, '$1')
    .replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g, "''");
}

describe('n8n safety of src/core and src/client', () => {
  it('covers the runtime files', () => {
    expect(safe.length).toBeGreaterThan(20);
    expect(safe.some((f) => f.endsWith('requester.ts'))).toBe(true);
  });

  it.each(safe.map((f) => [relative(root, f), f]))(
    '%s imports only zod/v4, node:crypto and relative files',
    (_name, file) => {
      const text = readFileSync(file, 'utf8');
      const specifiers = [
        ...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]/g),
      ].map((m) => m[1]!);
      const dynamic = [...text.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);
      for (const s of [...specifiers, ...dynamic]) expect(s).toMatch(ALLOWED_IMPORT);
    },
  );

  it.each(safe.map((f) => [relative(root, f), f]))(
    '%s uses no process, globalThis or timers',
    (_name, file) => {
      const match = FORBIDDEN_GLOBALS.exec(code(readFileSync(file, 'utf8')));
      expect(match?.[0]).toBeUndefined();
    },
  );
});
