// What every command gets: the merged configuration, the output mode, and one wrapper that turns
// errors into messages and exit codes.
import type { Command } from 'commander';
import { loadConfig, type CliConfig } from './config.ts';
import { createOutput, printError, type Output } from './output.ts';

export interface GlobalOptions {
  json?: boolean;
  home?: string;
  temporal?: string;
  namespace?: string;
  taskQueue?: string;
}

export interface Context {
  config: CliConfig;
  out: Output;
}

/**
 * Wraps a command's action: builds its context from the global options, runs it, and sets the exit
 * code from its return value (a number) or from the error it throws.
 */
export function action<A extends unknown[]>(
  fn: (ctx: Context, ...args: A) => Promise<number | void>,
): (...args: unknown[]) => Promise<void> {
  return async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const globals = command.optsWithGlobals<GlobalOptions>();
    const out = createOutput(Boolean(globals.json));
    try {
      const config = loadConfig(globals);
      const code = await fn({ config, out }, ...(args.slice(0, -1) as A));
      process.exitCode = code ?? 0;
    } catch (error) {
      process.exitCode = printError(error, out.json);
    }
  };
}
