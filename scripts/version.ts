// The packages' one version: every published package (packages/*) and the root move together, so a
// release is one number (and the workflows' replay RELEASE, test/replay-histories.ts, is its major.minor).
//   node scripts/version.ts 0.5.0          sets it everywhere (then add its CHANGELOG.md section)
//   node scripts/version.ts --check [v]    fails unless every package has the same version (and it is v)
// Workspace dependencies are `workspace:*`: pnpm pack/publish writes the version in, nothing to update.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SEMVER = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;
const manifests = [
  join(ROOT, 'package.json'),
  ...readdirSync(join(ROOT, 'packages')).map((p) => join(ROOT, 'packages', p, 'package.json')),
];

const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { name: string; version: string };
const [first, second] = process.argv.slice(2);

if (first === '--check') {
  const versions = new Map(manifests.map((f) => [read(f).name, read(f).version]));
  const distinct = new Set(versions.values());
  const want = second?.replace(/^v/, '');
  if (distinct.size !== 1 || (want !== undefined && !distinct.has(want))) {
    console.error(
      `versions differ${want ? ` from ${want}` : ''}: ${[...versions].map(([n, v]) => `${n}@${v}`).join(', ')}`,
    );
    process.exit(1);
  }
  console.log(`every package is at ${[...distinct][0]}`);
} else if (first !== undefined && SEMVER.test(first)) {
  for (const file of manifests) {
    const text = readFileSync(file, 'utf8');
    // Only the top-level "version" line: the file's formatting stays as it is.
    const next = text.replace(/^( {2}"version": )"[^"]*"/m, `$1"${first}"`);
    if (next === text && read(file).version !== first) throw new Error(`no top-level version in ${file}`);
    writeFileSync(file, next);
  }
  console.log(
    `set ${manifests.length} package.json files to ${first}; add a "## ${first}" section to CHANGELOG.md`,
  );
} else {
  console.error('usage: node scripts/version.ts <x.y.z> | --check [x.y.z]');
  process.exit(2);
}
