// `selling-kit auth login|status`: connect a seller of a cross-lister app with OAuth 2.0 (authorization
// code + PKCE, through a loopback callback on 127.0.0.1) and keep the tokens in the sealed token store,
// where the worker finds them. Tokens are never printed. Only the callback carrying this login's state
// ends the wait; the base URL is https: (or http: to loopback), the flags checked before anything runs.
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { createClient, SCOPES, type TokenSet } from '@selling-kit/api-client';
import { action, type Context } from '../context.ts';
import { baseUrlFrom } from '../config.ts';
import { CliError, EXIT } from '../errors.ts';
import { table } from '../output.ts';
import { readSecret } from '../secrets.ts';
import { tokenStore, sellerRefs } from '../stores.ts';

interface LoginOptions {
  shop: string;
  clientId: string;
  clientSecretEnv?: string;
  clientSecretStdin?: boolean;
  env?: string;
  baseUrl?: string;
  callbackPort: string;
  scope?: string[];
  sellerId?: string;
  timeout: string;
}

/** A whole number in [min, max] from a flag, else a usage error naming the flag and the range. */
function intFlag(value: string, flag: string, min: number, max: number, code: string, what: string): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new CliError(code, `${flag} must be ${what} from ${min} to ${max}`, EXIT.usage);
  return n;
}

/** Whether a callback URL carries this login's state (constant time; a missing state never matches). */
function carriesState(url: string, state: string): boolean {
  const got = new URL(url, 'http://127.0.0.1').searchParams.get('state') ?? '';
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(got), digest(state));
}

/**
 * Waits for the consent page's redirect to http://127.0.0.1:<port>/callback carrying this login's
 * `state` (given by `expect` once the authorization request exists). Any other hit — another local
 * process, a web page's `<img src=…/callback>` — gets a plain page and the login keeps waiting: the
 * first request no longer decides the login.
 */
function awaitCallback(
  port: number,
  timeoutMs: number,
): { ready: Promise<number>; callback: Promise<string>; expect(state: string): void } {
  let resolveCallback!: (url: string) => void;
  let rejectCallback!: (e: Error) => void;
  let expected: string | undefined;
  const callback = new Promise<string>((res, rej) => ((resolveCallback = res), (rejectCallback = rej)));
  const server = http.createServer((req, res) => {
    if (!req.url?.startsWith('/callback')) return res.writeHead(404).end();
    if (expected === undefined || !carriesState(req.url, expected))
      return res
        .writeHead(400, { 'content-type': 'text/plain; charset=utf-8' })
        .end('selling-kit: this is not the answer this login is waiting for; it keeps waiting.\n');
    res
      .writeHead(200, { 'content-type': 'text/plain; charset=utf-8' })
      .end('selling-kit: you can close this tab.\n');
    resolveCallback(req.url);
  });
  const timer = setTimeout(
    () =>
      rejectCallback(
        new CliError(
          'login_timeout',
          `no answer from the consent page within ${timeoutMs / 1000}s`,
          EXIT.credentials,
        ),
      ),
    timeoutMs,
  );
  void callback.finally(() => (clearTimeout(timer), server.close())).catch(() => undefined);
  const ready = new Promise<number>((res, rej) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      rej(
        new CliError(
          'callback_port_busy',
          `cannot listen on 127.0.0.1:${port} for the OAuth callback (${e.code})`,
          EXIT.usage,
          'pick a free port registered for your app with --callback-port',
        ),
      ),
    );
    server.listen(port, '127.0.0.1', () => res((server.address() as AddressInfo).port));
  });
  return { ready, callback, expect: (state) => (expected = state) };
}

async function login({ config, out }: Context, opts: LoginOptions): Promise<void> {
  // Checked before anything is read or listened on (NaN once meant an instant timeout).
  const timeoutSec = intFlag(opts.timeout, '--timeout', 1, 3600, 'bad_timeout', 'a whole number of seconds');
  const callbackPort = intFlag(opts.callbackPort, '--callback-port', 1, 65535, 'bad_callback_port', 'a port');
  const baseUrl = baseUrlFrom(opts);
  const clientSecret = await readSecret(
    { fromEnv: opts.clientSecretEnv, fromStdin: opts.clientSecretStdin },
    'OAuth client secret',
  );
  const scopes = opts.scope?.length ? opts.scope : [...SCOPES];
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length)
    throw new CliError(
      'bad_scope',
      `unknown scope(s) ${unknown.join(', ')}; known: ${SCOPES.join(', ')}`,
      EXIT.usage,
    );
  const { ready, callback, expect } = awaitCallback(callbackPort, timeoutSec * 1000);
  const port = await ready;
  const redirectUri = `http://127.0.0.1:${port}/callback`;
  const client = createClient({ baseUrl, oauth: { clientId: opts.clientId, clientSecret, redirectUri } });
  const request = client.auth.createAuthorizationUrl({
    scopes,
    ...(opts.sellerId ? { extraParams: { seller_id: opts.sellerId } } : {}),
  });
  expect(request.state);
  // The one line meant for a person (or a test acting as the browser): stderr, even with --json.
  process.stderr.write(`open this URL to connect the seller:\n${request.url}\n`);
  const url = await callback;
  let tokens: TokenSet;
  try {
    const { code } = client.auth.parseCallback(url, request.state);
    tokens = await client.auth.exchangeCode({ code, codeVerifier: request.codeVerifier });
  } catch (e) {
    throw new CliError(
      'login_failed',
      `the seller could not be connected: ${(e as Error).message}`,
      EXIT.credentials,
    );
  }
  await tokenStore(config).set(opts.shop, {
    baseUrl,
    clientId: opts.clientId,
    clientSecret,
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    expiresAt: tokens.expiresAt ?? Date.now() + 3600_000,
  });
  const shown = {
    shop: opts.shop,
    baseUrl,
    scopes: tokens.scopes ?? scopes,
    expiresAt: tokens.expiresAt ?? null,
  };
  out.result(
    shown,
    () => `seller ${opts.shop} connected (${baseUrl}); tokens sealed in ${config.tokenStoreFile}`,
  );
}

async function status({ config, out }: Context): Promise<void> {
  const store = tokenStore(config);
  const rows = await Promise.all(
    sellerRefs(config).map(async (shop) => {
      const t = (await store.get(shop))!;
      return {
        shop,
        baseUrl: t.baseUrl,
        clientId: t.clientId,
        expiresAt: new Date(t.expiresAt).toISOString(),
        accessToken: t.expiresAt > Date.now() ? 'valid' : 'expired (the worker refreshes it)',
      };
    }),
  );
  out.result(rows, () => table(rows, ['shop', 'baseUrl', 'clientId', 'expiresAt', 'accessToken']));
}

export function registerAuth(program: Command): void {
  const auth = program.command('auth').description('connect sellers with OAuth 2.0 (cross-listers)');
  auth
    .command('login')
    .requiredOption('--shop <id>', 'your name for the seller (used with --shop in jobs)')
    .requiredOption('--client-id <id>', "your app's OAuth client id")
    .option('--client-secret-env <name>', "read the app's client secret from this environment variable")
    .option('--client-secret-stdin', "read the app's client secret from stdin")
    .option('--env <preset>', 'simulator | staging | production', 'simulator')
    .option('--base-url <url>', 'API base URL (overrides --env)')
    .option('--callback-port <port>', 'loopback port of the redirect URI registered for the app', '8976')
    .option('--scope <scope...>', `scopes to ask for (default all: ${SCOPES.join(' ')})`)
    .option('--seller-id <id>', 'simulator only: the seller whose consent is given at once')
    .option('--timeout <seconds>', 'how long to wait for the consent', '300')
    .description('connect a seller: PKCE consent in the browser, tokens to the sealed token store')
    .addHelpText(
      'after',
      `
Examples:
  $ DEMO_SECRET=secret_demo selling-kit auth login --shop seller-1001 --client-id client_demo \\
      --client-secret-env DEMO_SECRET --env simulator --seller-id 1001
  $ selling-kit auth login --shop my-seller --client-id abc --client-secret-stdin --env production`,
    )
    .action(action((ctx, opts: LoginOptions) => login(ctx, opts)));
  auth
    .command('status')
    .description('connected sellers and their token expiry (never the tokens)')
    .action(action(status));
}
