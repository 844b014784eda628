// Runs deploy/native's systemd units without systemd (it is not PID 1 on CI machines): reads a unit's
// EnvironmentFile=, Environment= and ExecStart= and runs exactly that command with that environment, as
// systemd would (specifier %i, ${VAR} and $VAR expansion in ExecStart, later files win, `-` marks an
// optional file). The units' fixed configuration folder /etc/selling-kit is mapped to the test's own.
// What the runner does not do (User=, the sandboxing options) is systemd's, checked by
// `systemd-analyze verify` where that exists (verifyUnits).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { parseEnvFile } from './deploy-env.ts';

const run = promisify(execFile);

/** The folder the units read their settings and secrets from (deploy/native/install.sh's default). */
export const UNIT_ETC = '/etc/selling-kit';

export interface UnitCommand {
  argv: string[];
  env: Record<string, string>;
}

/** A unit's [Service] settings, continuation lines joined, in file order. */
function serviceSettings(text: string): [string, string][] {
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  const out: [string, string][] = [];
  let section = '';
  for (const raw of lines) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) section = header[1]!;
    else if (section === 'Service') {
      const eq = line.indexOf('=');
      out.push([line.slice(0, eq), line.slice(eq + 1).trim()]);
    }
  }
  return out;
}

/** systemd's ExecStart expansion: `$VAR` alone is split into words, `${VAR}` is replaced in place. */
function expandWords(command: string, env: Record<string, string>): string[] {
  if (/["']/.test(command)) throw new Error(`quoted ExecStart not supported by this runner: ${command}`);
  return command
    .split(/\s+/)
    .filter(Boolean)
    .flatMap((word) => {
      const whole = /^\$([A-Za-z_][A-Za-z0-9_]*)$/.exec(word);
      if (whole) return (env[whole[1]!] ?? '').split(/\s+/).filter(Boolean);
      return [word.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => env[name] ?? '')];
    });
}

/** The command and environment `unitFile` runs as `instance` (template units), with /etc/selling-kit → `etc`. */
export function unitCommand(unitFile: string, etc: string, instance = ''): UnitCommand {
  const specifiers = (s: string) => s.replace(/%i/g, instance).replace(/%%/g, '%');
  const env: Record<string, string> = {};
  const exec: string[] = [];
  for (const [key, value] of serviceSettings(readFileSync(unitFile, 'utf8'))) {
    if (key === 'EnvironmentFile') {
      const optional = value.startsWith('-');
      const path = specifiers(optional ? value.slice(1) : value).replace(UNIT_ETC, etc);
      if (!existsSync(path)) {
        if (optional) continue;
        throw new Error(`${basename(unitFile)}: EnvironmentFile ${path} is missing`);
      }
      Object.assign(env, parseEnvFile(readFileSync(path, 'utf8'), path));
    } else if (key === 'Environment') {
      for (const assignment of specifiers(value).split(/\s+/).filter(Boolean)) {
        const eq = assignment.indexOf('=');
        env[assignment.slice(0, eq)] = assignment.slice(eq + 1);
      }
    } else if (key === 'ExecStart') exec.push(specifiers(value));
  }
  if (exec.length !== 1)
    throw new Error(`${basename(unitFile)}: expected one ExecStart, found ${exec.length}`);
  return { argv: expandWords(exec[0]!, env), env };
}

/** Starts `unitFile` (its output appended to `output`); PATH is this process's (systemd gives its own). */
export function startUnit(
  unitFile: string,
  etc: string,
  instance = '',
  onOutput: (chunk: string) => void = () => {},
): ChildProcess {
  const { argv, env } = unitCommand(unitFile, etc, instance);
  const child = spawn(argv[0]!, argv.slice(1), {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? tmpdir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => onOutput(d.toString()));
  child.stderr!.on('data', (d: Buffer) => onOutput(d.toString()));
  return child;
}

/** Runs a Type=oneshot unit to its end: its exit code and output. */
export function runUnit(
  unitFile: string,
  etc: string,
  timeoutMs: number,
): Promise<{ code: number | null; output: string }> {
  let output = '';
  const child = startUnit(unitFile, etc, '', (c) => (output += c));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${basename(unitFile)} did not end in ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/**
 * `systemd-analyze verify` on the units (template units as `instance`), when the tool exists here:
 * its findings (empty: none), or undefined without the tool.
 */
export async function verifyUnits(unitFiles: string[], instance: string): Promise<string | undefined> {
  try {
    await run('systemd-analyze', ['--version']);
  } catch {
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'sk-units-'));
  try {
    const names = unitFiles.map((file) => {
      const name = basename(file).replace('@.', `@${instance}.`);
      copyFileSync(file, join(dir, name));
      return join(dir, name);
    });
    try {
      const { stderr } = await run('systemd-analyze', ['verify', ...names], { timeout: 60_000 });
      return stderr.trim();
    } catch (e) {
      const err = e as { stderr?: string; message: string };
      return err.stderr?.trim() || err.message;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
