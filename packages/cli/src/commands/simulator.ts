// `selling-kit simulator [flags]`: the simulator's own CLI (same flags), e.g. `--demo --port 4010`.
// Started through the simulator package's published bin (its package.json), so the same code runs the
// workspace's source and an installed package's dist/.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';

const SIMULATOR_BIN = 'selling-kit-simulator';

/** The path of the installed simulator's `selling-kit-simulator` bin script. */
export function simulatorBin(): string {
  const manifestUrl = import.meta.resolve('@selling-kit/simulator/package.json');
  const manifest = JSON.parse(readFileSync(new URL(manifestUrl), 'utf8')) as { bin?: Record<string, string> };
  const bin = manifest.bin?.[SIMULATOR_BIN];
  if (bin === undefined) throw new Error(`@selling-kit/simulator declares no ${SIMULATOR_BIN} bin`);
  return fileURLToPath(new URL(bin, manifestUrl));
}

export function registerSimulator(program: Command): void {
  program
    .command('simulator')
    .description('run the local Selling API simulator (flags: selling-kit simulator --help)')
    .allowUnknownOption()
    .helpOption(false)
    .argument('[flags...]')
    .action((flags: string[]) => {
      const child = spawn(process.execPath, [simulatorBin(), ...flags], { stdio: 'inherit' });
      // Ctrl-C reaches the child through the terminal's process group; just wait for it. A SIGTERM sent to
      // this process alone (a supervisor, a test) is passed on, so the simulator never outlives it.
      process.on('SIGINT', () => undefined);
      process.on('SIGTERM', () => child.kill('SIGTERM'));
      child.on('exit', (code, signal) => process.exit(code ?? (signal ? 130 : 1)));
    });
}
