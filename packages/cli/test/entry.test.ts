// The CLI's program loads the worker runtime (@temporalio/worker, the SDK's native core) only for the
// commands that run a worker (`worker`, `dev`): starting, watching or controlling a job never does.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

/** Builds the program in a fresh Node process (optionally loading `module` too): was the worker loaded? */
function loadsWorker(extra?: string): boolean {
  const script = `
    import { createRequire } from 'node:module';
    const { buildProgram } = await import('./src/main.ts');
    buildProgram();
    ${extra ? `await import(${JSON.stringify(extra)});` : ''}
    // CommonJS modules, @temporalio/worker among them, land in the one require cache however imported.
    const cache = createRequire(process.cwd() + '/').cache;
    console.log(JSON.stringify(Object.keys(cache).some((path) => path.includes('/@temporalio/worker/'))));
  `;
  const out = execFileSync(process.execPath, ['--no-warnings', '--input-type=module', '-e', script], {
    cwd: packageDir,
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').pop()!) as boolean;
}

describe('the CLI entry', () => {
  it('builds every command without loading @temporalio/worker', () => {
    expect(loadsWorker()).toBe(false);
  }, 60_000);

  it('the worker command’s runtime does load it (the check above can fail)', () => {
    expect(loadsWorker('./src/worker-run.ts')).toBe(true);
  }, 60_000);
});
