// Where `selling-kit dev` finds n8n (installed by scripts/setup-n8n.sh, never by the CLI) and how it
// puts the n8n nodes package (the CLI's dependency when installed from npm; this repository's, built
// first, in the workspace) into the dev n8n's user folder, copied the way `pnpm pack` ships it
// (package.json + dist/) into <userFolder>/.n8n/nodes/node_modules/<name>, where n8n's community-packages
// module loads it.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const N8N_VERSION = '2.40.7';
/** The nodes package, a dependency of the CLI. */
export const NODES_PACKAGE_NAME = '@selling-kit/n8n-nodes-marketplace';

/** Where the nodes package is: installed beside the CLI (npm, pnpm's workspace link), else this repository's. */
function nodesPackageDir(): string {
  try {
    return fileURLToPath(new URL('./', import.meta.resolve(`${NODES_PACKAGE_NAME}/package.json`)));
  } catch {
    return fileURLToPath(new URL('../../../n8n-nodes/', import.meta.url));
  }
}
export const NODES_PACKAGE_DIR = nodesPackageDir();
/** The repository's copy has its build script (and builds before each dev run); a published one ships dist/. */
const BUILD_SCRIPT = join(NODES_PACKAGE_DIR, 'scripts', 'build.mjs');
const SETUP_SCRIPT = fileURLToPath(new URL('../../../../scripts/setup-n8n.sh', import.meta.url));
export const INSTALL_HINT = existsSync(SETUP_SCRIPT)
  ? 'install it once with `bash scripts/setup-n8n.sh` (~6 min), or pass --no-n8n'
  : `install it with \`npm install --prefix ~/.cache/selling-kit/n8n-${N8N_VERSION} n8n@${N8N_VERSION}\` and set SELLING_KIT_N8N_BIN to its node_modules/n8n/bin/n8n, or pass --no-n8n`;

/**
 * n8n's bin script: SELLING_KIT_N8N_BIN, else the set-up's cache (complete only with its `.installed`
 * marker). Undefined when n8n is not installed: `dev` then says how to install it and goes on.
 */
export function findN8nBin(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.SELLING_KIT_N8N_BIN !== undefined)
    return existsSync(env.SELLING_KIT_N8N_BIN) ? env.SELLING_KIT_N8N_BIN : undefined;
  const cache = env.SELLING_KIT_CACHE ?? join(homedir(), '.cache', 'selling-kit');
  const dir = join(cache, `n8n-${env.SELLING_KIT_N8N_VERSION ?? N8N_VERSION}`);
  const bin = join(dir, 'node_modules', 'n8n', 'bin', 'n8n');
  return existsSync(bin) && existsSync(join(dir, '.installed')) ? bin : undefined;
}

interface NodesManifest {
  name: string;
  version: string;
  n8n?: { nodes?: string[]; credentials?: string[] };
}

function manifest(dir: string): NodesManifest {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as NodesManifest;
}

const missingFiles = (dir: string, m: NodesManifest) =>
  [...(m.n8n?.nodes ?? []), ...(m.n8n?.credentials ?? [])].filter((f) => !existsSync(join(dir, f)));

/**
 * Builds the nodes package (esbuild, ~2 s) and copies it into the user folder. The build empties dist/
 * first, so a build running elsewhere at the same moment can leave it incomplete: the copy is checked
 * against the files the package declares, and built again if any is missing.
 */
export async function installNodesPackage(userFolder: string): Promise<{ name: string; version: string }> {
  const source = manifest(NODES_PACKAGE_DIR);
  const target = join(userFolder, '.n8n', 'nodes', 'node_modules', ...source.name.split('/'));
  let missing: string[] = [];
  for (let attempt = 1; attempt <= 3; attempt++) {
    if (existsSync(BUILD_SCRIPT))
      await run(process.execPath, [BUILD_SCRIPT], { cwd: NODES_PACKAGE_DIR, maxBuffer: 16 * 1024 * 1024 });
    rmSync(target, { recursive: true, force: true });
    mkdirSync(target, { recursive: true });
    cpSync(join(NODES_PACKAGE_DIR, 'dist'), join(target, 'dist'), { recursive: true });
    writeFileSync(join(target, 'package.json'), readFileSync(join(NODES_PACKAGE_DIR, 'package.json')));
    missing = missingFiles(target, source);
    if (missing.length === 0) return { name: source.name, version: source.version };
    await new Promise((r) => setTimeout(r, 1_000 * attempt));
  }
  throw new Error(`the built n8n nodes package lacks ${missing.join(', ')}`);
}
