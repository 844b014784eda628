// `selling-kit keys issue|list|retire`: the client keys the worker accepts work from (temporal-workflows'
// auth/client-keys.ts). `issue` records a new key with the shops (and sellers) it may name in the
// worker's client keyring and prints, once, the one-line credential a client (n8n's Temporal credential,
// SELLING_KIT_CLIENT_KEY for a CLI) holds: it seals with the codec key derived from the master ring and
// signs with its own key, so it never holds the master key. `list` never shows a key.
import type { Command } from 'commander';
import {
  ALL,
  ClientKeysError,
  clientCredentialFor,
  issueClientKey,
  readClientKeys,
  retireClientKey,
} from '@selling-kit/temporal-workflows';
import { action, type Context } from '../context.ts';
import { CliError, EXIT } from '../errors.ts';
import { table } from '../output.ts';
import { authSettings, codecKey } from '../stores.ts';

const listOf = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

const keysError = (e: unknown): never => {
  if (e instanceof ClientKeysError) throw new CliError('bad_client_key', e.message, EXIT.usage);
  throw e;
};

async function issue(
  { config, out }: Context,
  opts: { id: string; shops?: string; sellers?: string; all?: boolean },
): Promise<void> {
  const shops = opts.all ? [ALL] : listOf(opts.shops);
  const sellers = opts.all ? [ALL] : listOf(opts.sellers);
  if (opts.all && (opts.shops || opts.sellers))
    throw new CliError(
      'bad_client_key',
      '--all grants every shop and seller: leave out --shops / --sellers',
      EXIT.usage,
    );
  // The master ring first: without it no credential could be made (and nothing is recorded).
  const ring = codecKey(config);
  const { clientKeysFile } = authSettings(config);
  let record;
  try {
    record = issueClientKey(clientKeysFile, { id: opts.id, shops, sellers });
  } catch (e) {
    record = keysError(e);
  }
  const credential = clientCredentialFor(ring, record);
  out.info(
    `client key ${record.id} issued (shops: ${record.shops.join(', ') || '-'}; sellers: ${record.sellers.join(', ') || '-'}), ` +
      `recorded in ${clientKeysFile}. The line below is shown once: give it to the client ` +
      "(n8n: the Temporal credential's Client Key; a CLI: SELLING_KIT_CLIENT_KEY).",
  );
  out.result({ id: record.id, shops: record.shops, sellers: record.sellers, credential }, () => credential);
}

async function list({ config, out }: Context): Promise<void> {
  const { clientKeysFile } = authSettings(config);
  let rows;
  try {
    rows = readClientKeys(clientKeysFile).map((r) => ({
      id: r.id,
      shops: r.shops.join(','),
      sellers: r.sellers.join(','),
      issuedAt: r.issuedAt,
      retiredAt: r.retiredAt ?? '',
    }));
  } catch (e) {
    rows = keysError(e);
  }
  out.result(rows, () =>
    rows.length ? table(rows, ['id', 'shops', 'sellers', 'issuedAt', 'retiredAt']) : 'no client keys',
  );
}

async function retire({ config, out }: Context, id: string): Promise<void> {
  const { clientKeysFile } = authSettings(config);
  let record;
  try {
    record = retireClientKey(clientKeysFile, id);
  } catch (e) {
    record = keysError(e);
  }
  out.result(
    { id, retiredAt: record.retiredAt },
    () => `client key ${id} retired: the worker refuses what it seals`,
  );
}

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('client keys: who may start work, for which shops');
  keys
    .command('issue')
    .requiredOption('--id <id>', 'the client\'s name (letters, digits, "_", "-"); never reused')
    .option('--shops <a,b>', 'the shops (and API-key credential names) it may name')
    .option('--sellers <s1,s2>', 'the OAuth sellers it may name')
    .option('--all', 'every shop and seller (an operator tool, not a client)')
    .description('issue a client key and print its credential once')
    .action(action(issue));
  keys.command('list').description('client keys, their scopes and dates (never a key)').action(action(list));
  keys
    .command('retire')
    .argument('<id>')
    .description('retire a client key: the worker refuses what it seals from now on')
    .action(action(retire));
  keys.addHelpText(
    'after',
    `
Examples:
  $ selling-kit keys issue --id n8n-prod --shops shop-a,shop-b
  $ selling-kit keys list
  $ selling-kit keys retire n8n-prod`,
  );
}
