// `selling-kit shops add|list|remove`: API-key shops (direct partners). Keys are checked against the API
// when added, stored in credentials.json (mode 0600, changed under its lock) for the worker, and only
// ever shown masked. Base URLs: https:, or http: to a loopback host only.
import type { Command } from 'commander';
import { action, type Context } from '../context.ts';
import { baseUrlFrom } from '../config.ts';
import { CliError, EXIT } from '../errors.ts';
import { table } from '../output.ts';
import { checkShopCredential } from '../preflight.ts';
import { readSecret } from '../secrets.ts';
import { mask, readShops, saveShop, updateShops } from '../stores.ts';

const SHOP_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

async function add(
  { config, out }: Context,
  shopId: string,
  opts: { apiKeyStdin?: boolean; apiKeyEnv?: string; env?: string; baseUrl?: string; check: boolean },
): Promise<void> {
  if (!SHOP_ID.test(shopId))
    throw new CliError(
      'bad_shop_id',
      `shop id "${shopId}": use letters, digits, ".", "_" or "-" (at most 64)`,
      EXIT.usage,
    );
  const apiKey = await readSecret({ fromStdin: opts.apiKeyStdin, fromEnv: opts.apiKeyEnv }, 'API key');
  const credential = { baseUrl: baseUrlFrom(opts), apiKey, addedAt: new Date().toISOString() };
  if (opts.check) await checkShopCredential(shopId, credential);
  await saveShop(config, shopId, credential);
  const shown = { shopId, baseUrl: credential.baseUrl, apiKey: mask(apiKey), checked: opts.check };
  out.result(shown, () => `shop ${shopId} saved (${credential.baseUrl}, key ${shown.apiKey})`);
}

async function list({ config, out }: Context): Promise<void> {
  const rows = Object.entries(readShops(config)).map(([shopId, c]) => ({
    shopId,
    baseUrl: c.baseUrl,
    apiKey: mask(c.apiKey),
    addedAt: c.addedAt ?? '',
  }));
  out.result(rows, () => table(rows, ['shopId', 'baseUrl', 'apiKey', 'addedAt']));
}

async function remove({ config, out }: Context, shopId: string): Promise<void> {
  await updateShops(config, (shops) => {
    if (!shops[shopId]) throw new CliError('unknown_shop', `unknown shop "${shopId}"`, EXIT.notFound);
    const { [shopId]: _removed, ...rest } = shops;
    return rest;
  });
  out.result({ shopId, removed: true }, () => `shop ${shopId} removed`);
}

export function registerShops(program: Command): void {
  const shops = program.command('shops').description('API-key shops the worker can act for');
  shops
    .command('add')
    .argument('<shopId>', 'your name for the shop (used with --shop)')
    .option('--api-key-stdin', 'read the API key from stdin')
    .option('--api-key-env <name>', 'read the API key from this environment variable')
    .option('--env <preset>', 'simulator | staging | production', 'simulator')
    .option('--base-url <url>', 'API base URL (overrides --env)')
    .option('--no-check', 'save without checking the key against the API')
    .description('store a shop API key (checked with GET /api/v1/shop/ first)')
    .action(action(add));
  shops.command('list').description('stored shops, keys masked').action(action(list));
  shops
    .command('remove')
    .argument('<shopId>')
    .description('forget a shop and its key')
    .action(action(remove));
  shops.addHelpText(
    'after',
    `
Examples:
  $ echo "$SHOP_KEY" | selling-kit shops add my-shop --api-key-stdin --env production
  $ selling-kit shops add demo --api-key-env DEMO_KEY --env simulator
  $ selling-kit shops list --json`,
  );
}
