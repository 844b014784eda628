// `selling-kit codec-server`: the production codec endpoint, so operators read sealed job payloads in the
// Temporal UI (through an authenticating proxy) or with `temporal workflow show --codec-endpoint
// --codec-auth` without `selling-kit dev`. The endpoint is a decryption oracle (codec-server.ts): it needs a
// bearer token (from the environment or a file, never argv, where any local user reads it), allows CORS
// for the named origins only, decodes only, and listens on 127.0.0.1 (a proxy or an SSH tunnel brings it to
// the browser). It opens payloads with the master ring (SELLING_KIT_CODEC_KEY or the key file) without
// the worker's checks: it shows, it never decides.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { AesGcmCodec, startCodecServer } from '@selling-kit/temporal-workflows';
import { action, type Context } from '../context.ts';
import { CliError, EXIT } from '../errors.ts';
import { codecKey } from '../stores.ts';

/** The bearer token clients of the endpoint send (`Authorization: Bearer <token>`). */
export const CODEC_SERVER_TOKEN_ENV = 'SELLING_KIT_CODEC_SERVER_TOKEN';
/** Shortest token accepted: a guessable token would open every payload. */
export const CODEC_SERVER_TOKEN_MIN_LENGTH = 32;

interface CodecServerFlags {
  port: string;
  allowOrigin: string[];
  tokenFile?: string;
}

function readToken(flags: CodecServerFlags): string {
  let token: string | undefined;
  if (flags.tokenFile) {
    try {
      token = readFileSync(flags.tokenFile, 'utf8').trim();
    } catch (e) {
      throw new CliError(
        'codec_server_token_unreadable',
        `--token-file ${flags.tokenFile} cannot be read: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
        EXIT.usage,
      );
    }
  } else token = process.env[CODEC_SERVER_TOKEN_ENV]?.trim();
  if (!token)
    throw new CliError(
      'codec_server_token_missing',
      `the codec endpoint needs a bearer token: set ${CODEC_SERVER_TOKEN_ENV} or --token-file`,
      EXIT.usage,
      'e.g. openssl rand -hex 32',
    );
  if (token.length < CODEC_SERVER_TOKEN_MIN_LENGTH)
    throw new CliError(
      'codec_server_token_weak',
      `the codec endpoint's token must be at least ${CODEC_SERVER_TOKEN_MIN_LENGTH} characters`,
      EXIT.usage,
      'e.g. openssl rand -hex 32',
    );
  return token;
}

async function run({ config, out }: Context, flags: CodecServerFlags): Promise<number> {
  const token = readToken(flags);
  const port = Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new CliError('invalid_port', `--port must be a port number, not ${flags.port}`, EXIT.usage);
  // Decode only, with the worker's keys, without its checks (what a payload says is shown, not obeyed).
  const codec = new AesGcmCodec(codecKey(config), { verify: false });
  const server = await startCodecServer({ codec, port, allowOrigin: flags.allowOrigin, token }).catch(
    (e: NodeJS.ErrnoException) => {
      throw new CliError(
        'codec_server_failed',
        `the codec endpoint cannot listen on 127.0.0.1:${port}: ${e.code ?? e.message}`,
        EXIT.usage,
      );
    },
  );
  out.info(
    `codec endpoint ${server.url} (POST /decode, bearer token, origins ${flags.allowOrigin.join(', ')})`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await server.close();
  return EXIT.ok;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerCodecServer(program: Command): void {
  program
    .command('codec-server')
    .description(
      'serve the codec endpoint (POST /decode) for the Temporal UI and `temporal --codec-endpoint`: bearer token, CORS for the given origins, 127.0.0.1 only (until Ctrl-C or SIGTERM)',
    )
    .requiredOption(
      '--allow-origin <origin>',
      "the UI's origin browsers call from, e.g. https://temporal-ui.example.com (repeatable; never *)",
      collect,
    )
    .option('--port <n>', 'port on 127.0.0.1', '8888')
    .option(
      '--token-file <path>',
      `file holding the bearer token (else env ${CODEC_SERVER_TOKEN_ENV}; never on the command line)`,
    )
    .addHelpText(
      'after',
      `
Examples:
  $ SELLING_KIT_CODEC_SERVER_TOKEN=$(openssl rand -hex 32) selling-kit codec-server --allow-origin https://temporal-ui.example.com
  $ temporal workflow show -w bulk:<job id> --codec-endpoint http://127.0.0.1:8888 --codec-auth "Bearer $SELLING_KIT_CODEC_SERVER_TOKEN"`,
    )
    .action(action(run));
}
