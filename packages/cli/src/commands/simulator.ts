// `selling-kit simulator [flags]`: the simulator's own CLI (same flags), e.g. `--demo --port 4010`.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';

export function registerSimulator(program: Command): void {
  program
    .command('simulator')
    .description('run the local Selling API simulator (flags: selling-kit simulator --help)')
    .allowUnknownOption()
    .helpOption(false)
    .argument('[flags...]')
    .action((flags: string[]) => {
      const cli = fileURLToPath(new URL('./cli.ts', import.meta.resolve('@selling-kit/simulator')));
      const child = spawn(process.execPath, [cli, ...flags], { stdio: 'inherit' });
      // Ctrl-C reaches the child through the terminal's process group; just wait for it.
      process.on('SIGINT', () => undefined);
      child.on('exit', (code, signal) => process.exit(code ?? (signal ? 130 : 1)));
    });
}
