// Test helper: every folder and file under a root that another local user could read or enter
// (any group or other permission bit), as "path mode" lines; [] when all is private.
import { lstatSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

export function privateTreeProblems(root: string): string[] {
  const problems: string[] = [];
  const visit = (path: string) => {
    const info = lstatSync(path);
    if (info.isSymbolicLink()) return;
    if (info.mode & 0o077) problems.push(`${relative(root, path) || '.'} ${(info.mode & 0o777).toString(8)}`);
    if (info.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return problems;
}
