// `selling-kit schedules create|list|delete`: recurring jobs as Temporal Schedules — a feed sync (upsert
// a feed file or URL every interval) and the daily orders reconciliation.
import { Option, type Command } from 'commander';
import { ScheduleNotFoundError } from '@temporalio/client';
import {
  createFeedSyncSchedule,
  createOrdersReconciliationSchedule,
  deleteSchedule,
  listSchedules,
} from '@selling-kit/temporal-workflows';
import { action, type Context } from '../context.ts';
import { CliError, EXIT } from '../errors.ts';
import { checkFeed, feedRef, OPERATIONS } from '../jobs.ts';
import { table } from '../output.ts';
import { jobShops } from '../worker-shops.ts';
import { withTemporal } from '../temporal.ts';

interface CreateOptions {
  kind: 'feed-sync' | 'orders-reconciliation';
  shop: string;
  feed?: string;
  format?: string;
  op: string;
  every?: string;
  cron?: string;
  lookbackHours: string;
  orderFlows?: boolean;
}

async function create({ config, out }: Context, scheduleId: string, opts: CreateOptions): Promise<void> {
  if (opts.every && opts.cron)
    throw new CliError('bad_timing', 'give --every or --cron, not both', EXIT.usage);
  if (opts.every && !/^\d+(ms|s|m|h|d)$/.test(opts.every))
    throw new CliError(
      'bad_timing',
      `--every "${opts.every}": use a number and a unit, e.g. 30m, 1h, 1d`,
      EXIT.usage,
    );
  if (opts.cron && opts.cron.trim().split(/\s+/).length !== 5)
    throw new CliError('bad_timing', `--cron "${opts.cron}": use five fields, e.g. "0 3 * * *"`, EXIT.usage);
  await withTemporal(config, async (client) => {
    // Which credential the worker has for the shop (this host needs none); the key is checked by each run.
    const ref = (await jobShops(client, config, [opts.shop], false))[0]!;
    try {
      if (opts.kind === 'feed-sync') {
        if (!opts.feed)
          throw new CliError('feed_required', 'a feed-sync schedule needs --feed <file or URL>', EXIT.usage);
        if (!opts.every && !opts.cron)
          throw new CliError('bad_timing', 'a feed sync needs --every or --cron', EXIT.usage);
        const feed = feedRef(opts.feed, opts.format);
        const operation = OPERATIONS[opts.op]!;
        await checkFeed(feed, operation);
        await createFeedSyncSchedule(
          client,
          scheduleId,
          { shop: ref, feed, operation },
          { every: opts.every, cron: opts.cron },
          config.taskQueue,
        );
      } else {
        const hours = Number(opts.lookbackHours);
        if (!(hours > 0))
          throw new CliError('bad_lookback', '--lookback-hours must be a positive number', EXIT.usage);
        await createOrdersReconciliationSchedule(
          client,
          scheduleId,
          { shop: ref, lookbackHours: hours, ...(opts.orderFlows ? { orderFlows: {} } : {}) },
          opts.every || opts.cron ? { every: opts.every, cron: opts.cron } : undefined,
          config.taskQueue,
        );
      }
    } catch (e) {
      if (/already (exists|registered|running)/i.test((e as Error).message))
        throw new CliError('schedule_exists', `a schedule "${scheduleId}" already exists`, EXIT.usage);
      throw e;
    }
  });
  out.result(
    {
      scheduleId,
      kind: opts.kind,
      shop: opts.shop,
      every: opts.every ?? null,
      cron: opts.cron ?? (opts.every ? null : '0 3 * * *'),
      ...(opts.kind === 'orders-reconciliation' ? { orderFlows: opts.orderFlows === true } : {}),
    },
    () => `schedule ${scheduleId} created`,
  );
}

async function list({ config, out }: Context): Promise<void> {
  const rows = await withTemporal(config, async (client) =>
    (await listSchedules(client)).map((s) => ({
      scheduleId: s.scheduleId,
      kind: s.kind,
      workflow: s.workflowType,
      next: s.nextActionTimes[0]?.toISOString() ?? '',
      paused: s.paused,
    })),
  );
  out.result(rows, () => table(rows, ['scheduleId', 'kind', 'next', 'paused']));
}

async function remove({ config, out }: Context, scheduleId: string): Promise<void> {
  await withTemporal(config, (client) =>
    deleteSchedule(client, scheduleId).catch((e: Error) => {
      if (e instanceof ScheduleNotFoundError || /not found/i.test(e.message))
        throw new CliError('schedule_not_found', `no schedule "${scheduleId}"`, EXIT.notFound);
      throw e;
    }),
  );
  out.result({ scheduleId, deleted: true }, () => `schedule ${scheduleId} deleted`);
}

export function registerSchedules(program: Command): void {
  const schedules = program.command('schedules').description('recurring jobs (Temporal Schedules)');
  schedules
    .command('create')
    .argument('<scheduleId>')
    .addOption(
      new Option('--kind <kind>', 'what runs')
        .choices(['feed-sync', 'orders-reconciliation'])
        .makeOptionMandatory(),
    )
    .requiredOption('-s, --shop <id>', 'the shop it runs for')
    .option('--feed <file>', 'feed-sync: the feed file or URL')
    .addOption(new Option('--format <format>', 'feed-sync: feed format').choices(['csv', 'json', 'ndjson']))
    .addOption(
      new Option('-o, --op <operation>', 'feed-sync: operation')
        .choices(Object.keys(OPERATIONS))
        .default('upsert'),
    )
    .option('--every <interval>', 'run every interval, e.g. 30m, 1h, 1d')
    .option('--cron <expr>', 'run on a cron expression (UTC), e.g. "0 3 * * *" (reconciliation default)')
    .option('--lookback-hours <h>', 'orders-reconciliation: hours of orders to check', '24')
    .option(
      '--order-flows',
      'orders-reconciliation: start the order flow of each order still waiting (a missed webhook), and end flows of orders shipped elsewhere',
    )
    .description('create a schedule')
    .action(action(create));
  schedules.command('list').description('schedules and their next run').action(action(list));
  schedules
    .command('delete')
    .argument('<scheduleId>')
    .description('delete a schedule')
    .action(action(remove));
  schedules.addHelpText(
    'after',
    `
Examples:
  $ selling-kit schedules create nightly-feed --kind feed-sync --shop demo --feed feed.csv --every 1h
  $ selling-kit schedules create daily-orders --kind orders-reconciliation --shop demo
  $ selling-kit schedules delete nightly-feed`,
  );
}
