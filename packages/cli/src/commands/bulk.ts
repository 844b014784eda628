// `selling-kit bulk <file> --shop <id> [--shop …] --op <operation>`: checks the feed, asks the worker about
// the shops and their keys (the worker holds them: this host needs none), starts the job on Temporal, then
// follows it to the end (or returns at once with --detach).
import { Option, type Command } from 'commander';
import { idProblem, startBulkJob } from '@selling-kit/temporal-workflows';
import { action, type Context } from '../context.ts';
import { CliError, EXIT } from '../errors.ts';
import {
  checkFeed,
  exitCodeOf,
  feedRef,
  jobUiUrl,
  newJobId,
  OPERATIONS,
  summarize,
  summaryLines,
  watchJob,
} from '../jobs.ts';
import { withTemporal } from '../temporal.ts';
import { jobShops } from '../worker-shops.ts';

export interface BulkOptions {
  shop: string[];
  op: string;
  format?: string;
  jobId?: string;
  detach?: boolean;
  check: boolean;
}

export async function runBulk({ config, out }: Context, file: string, opts: BulkOptions): Promise<number> {
  if (opts.shop.length === 0)
    throw new CliError('shop_required', 'name at least one shop with --shop <id>', EXIT.usage);
  // The job contract's id rule (the worker refuses a bad id too): before the feed is even read.
  const badId = opts.jobId === undefined ? undefined : idProblem('--job-id', opts.jobId);
  if (badId) throw new CliError('bad_job_id', badId, EXIT.usage);
  const operation = OPERATIONS[opts.op]!;
  const feed = feedRef(file, opts.format);
  const shopIds = [...new Set(opts.shop)];
  const checked = await checkFeed(feed, operation, { url: opts.check });
  if (checked) {
    out.info(
      `feed ${feed.path}: ${checked.total} items, ${checked.valid} to send, ${checked.invalid} invalid (reported, never sent)`,
    );
    if (checked.total === 0)
      throw new CliError('feed_empty', `the feed ${feed.path} has no items`, EXIT.usage);
  }
  const jobId = opts.jobId ?? newJobId();
  return withTemporal(config, async (client) => {
    const refs = await jobShops(client, config, shopIds, opts.check);
    const common = { jobId, operation };
    await startBulkJob(
      client,
      refs.length === 1 ? { ...common, shop: refs[0]!, feed } : { ...common, shops: refs, feed },
      config.taskQueue,
    ).catch((e: Error) => {
      if (/already started|already exists/i.test(e.message))
        throw new CliError('job_exists', `a job with id "${jobId}" already exists`, EXIT.usage);
      throw e;
    });
    out.info(`started job ${jobId} (${opts.op}, ${refs.map((r) => r.shopId).join(', ')})`);
    if (opts.detach) {
      out.result({ jobId, state: 'running', ui: jobUiUrl(config, jobId) }, () => [
        `job ${jobId} started`,
        `follow it:   selling-kit jobs watch ${jobId}`,
        `Temporal UI: ${jobUiUrl(config, jobId)}`,
      ]);
      return EXIT.ok;
    }
    const final = await watchJob(client, config, jobId, out, { expectedTotal: checked?.total });
    const summary = await summarize(client, config, out, jobId, final);
    out.result(summary, () => summaryLines(summary));
    return exitCodeOf(summary);
  });
}

export function registerBulk(program: Command): void {
  program
    .command('bulk')
    .description('run a bulk job over a CSV / JSON / NDJSON feed for one or more shops, with live progress')
    .argument('<file>', 'feed file (or http(s) URL) — CSV columns are the wire field names')
    .option(
      '-s, --shop <id>',
      'shop to run for (repeat for several shops)',
      (v, acc: string[]) => [...acc, v],
      [],
    )
    .addOption(
      new Option('-o, --op <operation>', 'what to do with each item')
        .choices(Object.keys(OPERATIONS))
        .makeOptionMandatory(),
    )
    .addOption(
      new Option('--format <format>', 'feed format (default: from the extension)').choices([
        'csv',
        'json',
        'ndjson',
      ]),
    )
    .option('--job-id <id>', 'job id (default: job-<timestamp>-<random>)')
    .option('-d, --detach', 'start the job and return at once')
    .option(
      '--no-check',
      "skip the checks of the shops' API keys (the worker still says which shops it has) and of a feed URL",
    )
    .addHelpText(
      'after',
      `
Examples:
  $ selling-kit bulk examples/listings.csv --shop demo --op create
  $ selling-kit bulk feed.ndjson --shop shop-a --shop shop-b --op upsert --detach
  $ selling-kit bulk sold.csv --shop demo --op mark-sold --json

Exit codes: 0 all items ok, 3 some items failed or were invalid (see the report), 2 bad input (a feed
file or URL that cannot be read), 4 unknown shop, 5 Temporal unreachable, 6 API key rejected / API
unreachable, 7 job cancelled or failed, 8 started, but no worker polls the task queue.`,
    )
    .action(action(runBulk));
}
