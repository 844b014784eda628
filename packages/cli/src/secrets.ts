// Secrets come from stdin or a named environment variable, never from a command-line argument (which
// other users see in `ps` and shells keep in their history).
import { CliError, EXIT } from './errors.ts';

export async function readSecret(
  opts: { fromStdin?: boolean; fromEnv?: string },
  what: string,
): Promise<string> {
  let value: string | undefined;
  if (opts.fromEnv) {
    value = process.env[opts.fromEnv];
    if (!value)
      throw new CliError(
        'secret_missing',
        `the environment variable ${opts.fromEnv} (${what}) is empty or unset`,
        EXIT.usage,
      );
  } else if (opts.fromStdin) {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    value = Buffer.concat(chunks).toString('utf8').trim();
    if (!value) throw new CliError('secret_missing', `no ${what} on stdin`, EXIT.usage);
  } else {
    throw new CliError(
      'secret_missing',
      `give the ${what} on stdin (--*-stdin) or in an environment variable (--*-env NAME)`,
      EXIT.usage,
    );
  }
  if (/\s/.test(value)) throw new CliError('secret_invalid', `the ${what} contains whitespace`, EXIT.usage);
  return value;
}
