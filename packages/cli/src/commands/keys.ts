// `selling-kit keys issue|list|retire|import|reseal`: the client keys the worker accepts work from (temporal-workflows'
// auth/client-keys.ts). The keyring is where the worker finds it (client-keyring.ts: SELLING_KIT_CLIENT_KEYS, a
// file or a postgres:// URL; unset, the job store's database when SELLING_KIT_JOB_STORE is one, else
// <home>/client-keys.json). `issue` records a new key with the shops (and sellers) it may name and prints,
// once, the one-line credential a client (n8n's Temporal credential, SELLING_KIT_CLIENT_KEY for a CLI) holds:
// it seals with the codec key derived from the master ring and signs with its own key, so it never holds the
// master key. `list` never shows a key. A database keyring's rows are sealed under the master ring, so every
// command on it needs the ring (run them where the operator holds it). `import <file>` copies a file keyring
// into the database keyring (moving a deployment to several hosts); running it again changes nothing.
// `reseal` seals a database keyring's rows under the ring's current key: after a master ring rotation, before
// the old key leaves the ring (a row only that key opens would then be ignored, its client refused).
import type { Command } from 'commander';
import {
  ALL,
  ClientKeyringUnavailable,
  ClientKeysError,
  KEYRING_REFRESH_MS,
  clientCredentialFor,
  openClientKeyStore,
  readClientKeys,
  type ClientKeyStore,
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
  if (e instanceof ClientKeyringUnavailable)
    throw new CliError(
      'client_keys_unavailable',
      e.message,
      EXIT.usage,
      'check SELLING_KIT_CLIENT_KEYS (or SELLING_KIT_JOB_STORE, whose database holds the keyring when it is unset)',
    );
  if (e instanceof ClientKeysError) throw new CliError('bad_client_key', e.message, EXIT.usage);
  throw e;
};

/** Runs `work` on the keyring the worker uses, mapping its errors and closing it. */
async function withKeyring<T>(
  config: Context['config'],
  work: (store: ClientKeyStore) => Promise<T>,
): Promise<T> {
  const store = openClientKeyStore(authSettings(config).clientKeys, () => codecKey(config));
  try {
    return await work(store);
  } catch (e) {
    return keysError(e);
  } finally {
    await store.close();
  }
}

/** When retiring takes effect: at once for a file (re-read on change), within a refresh for a database. */
const takesEffect = (store: ClientKeyStore) =>
  store.description.startsWith('postgres')
    ? `every worker refuses what it seals within ${KEYRING_REFRESH_MS / 1000} s`
    : 'the worker refuses what it seals';

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
  const { record, where } = await withKeyring(config, async (store) => ({
    record: await store.issue({ id: opts.id, shops, sellers }),
    where: store.description,
  }));
  const credential = clientCredentialFor(ring, record);
  out.info(
    `client key ${record.id} issued (shops: ${record.shops.join(', ') || '-'}; sellers: ${record.sellers.join(', ') || '-'}), ` +
      `recorded in ${where}. The line below is shown once: give it to the client ` +
      "(n8n: the Temporal credential's Client Key; a CLI: SELLING_KIT_CLIENT_KEY).",
  );
  out.result({ id: record.id, shops: record.shops, sellers: record.sellers, credential }, () => credential);
}

async function list({ config, out }: Context): Promise<void> {
  const rows = (await withKeyring(config, (store) => store.list())).map((r) => ({
    id: r.id,
    shops: r.shops.join(','),
    sellers: r.sellers.join(','),
    issuedAt: r.issuedAt,
    retiredAt: r.retiredAt ?? '',
  }));
  out.result(rows, () =>
    rows.length ? table(rows, ['id', 'shops', 'sellers', 'issuedAt', 'retiredAt']) : 'no client keys',
  );
}

async function retire({ config, out }: Context, id: string): Promise<void> {
  const { record, effect } = await withKeyring(config, async (store) => ({
    record: await store.retire(id),
    effect: takesEffect(store),
  }));
  out.result({ id, retiredAt: record.retiredAt }, () => `client key ${id} retired: ${effect}`);
}

async function importFile({ config, out }: Context, file: string): Promise<void> {
  let records;
  try {
    records = readClientKeys(file);
  } catch (e) {
    records = keysError(e);
  }
  if (!records.length)
    throw new CliError('bad_client_key', `${file} holds no client keys (or does not exist)`, EXIT.usage);
  const { result, where } = await withKeyring(config, async (store) => ({
    result: await store.importRecords(records),
    where: store.description,
  }));
  out.result({ ...result, keyring: where }, () =>
    [
      `imported into ${where}: ${result.imported.join(', ') || 'none'}`,
      `already there: ${result.present.join(', ') || 'none'}`,
      ...(result.conflicting.length
        ? [
            `left as the database has them (another key under the same id): ${result.conflicting.join(', ')}. ` +
              'Issue those clients new keys under new ids.',
          ]
        : []),
    ].join('\n'),
  );
}

async function reseal({ config, out }: Context): Promise<void> {
  const { result, where } = await withKeyring(config, async (store) => ({
    result: await store.reseal(),
    where: store.description,
  }));
  out.result({ ...result, keyring: where }, () =>
    [
      `sealed again under the master ring's current key in ${where}: ${result.resealed.join(', ') || 'none needed'}`,
      ...(result.unopened.length
        ? [
            `rows no key of the ring opens (left as they are, refused by workers): ${result.unopened.join(', ')}`,
          ]
        : []),
    ].join('\n'),
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
  keys
    .command('import')
    .argument('<file>', 'a client keyring file (client-keys.json)')
    .description('copy a file keyring into the database keyring (idempotent)')
    .action(action(importFile));
  keys
    .command('reseal')
    .description(
      "seal a database keyring again under the master ring's current key (before dropping an old one)",
    )
    .action(action(reseal));
  keys.addHelpText(
    'after',
    `
The keyring: SELLING_KIT_CLIENT_KEYS (a file, or a postgres:// URL every worker host reads); unset, the
job store's database when SELLING_KIT_JOB_STORE is a postgres:// URL, else <home>/client-keys.json.

Examples:
  $ selling-kit keys issue --id n8n-prod --shops shop-a,shop-b
  $ selling-kit keys list
  $ selling-kit keys retire n8n-prod
  $ SELLING_KIT_JOB_STORE=postgres://… selling-kit keys import ~/.selling-kit/client-keys.json`,
  );
}
