// `selling-kit worker`: the command's flags and help. What it runs (the worker runtime, `../worker-run.ts`)
// is imported when the command runs, so the CLI's other commands never load @temporalio/worker.
import type { Command } from 'commander';
import { TOKEN_STORE_ENV } from '../config.ts';
import { action, type Context } from '../context.ts';
import { CliError, EXIT } from '../errors.ts';
import type { WorkerFlags } from '../worker-run.ts';

/**
 * A database URL carrying a password (`user:pass@`, or `?password=`) on argv is readable by every local
 * user (`ps`): refused, naming where it goes instead. The value is never echoed.
 */
export function refusePasswordOnArgv(flag: string, value: string | undefined, envName: string): void {
  if (!value) return;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return; // a file path
  }
  if (!url.password && !url.searchParams.has('password')) return;
  throw new CliError(
    'secret_on_argv',
    `${flag} holds a password, which any local user can read on the command line: put the URL in ${envName} (or the password in PGPASSWORD)`,
    EXIT.usage,
  );
}

const run = async (ctx: Context, flags: WorkerFlags) => {
  refusePasswordOnArgv('--token-store', flags.tokenStore, TOKEN_STORE_ENV);
  return (await import('../worker-run.ts')).run(ctx, flags);
};

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('run a worker for the stored shops and sellers (until Ctrl-C or SIGTERM)')
    .option(
      '--max-concurrent-activities <n>',
      'activities run at once (env SELLING_KIT_MAX_CONCURRENT_ACTIVITIES; default 100)',
    )
    .option(
      '--max-cached-workflows <n>',
      'sticky cache: workflows kept in memory between tasks, 0 = off (env SELLING_KIT_MAX_CACHED_WORKFLOWS; default from the heap)',
    )
    .option(
      '--max-cached-order-flows <n>',
      "the order flows' sticky cache: flows kept in memory between their tasks (env SELLING_KIT_MAX_CACHED_ORDER_FLOWS; default 500)",
    )
    .option(
      '--shutdown-grace-time <duration>',
      'after SIGTERM / Ctrl-C, in-flight batches get this long to finish, e.g. 30s (env SELLING_KIT_SHUTDOWN_GRACE_TIME; default 10s)',
    )
    .option(
      '--metrics-address <host:port>',
      'serve Prometheus metrics at http://<host:port>/metrics (env SELLING_KIT_METRICS_ADDRESS; off by default)',
    )
    .option(
      '--queues <which>',
      'the queues polled: all, jobs (bulk jobs, lanes, schedules) or sales (the sale lane alone, a process whose event loop no bulk request delays); a deployment serves both (env SELLING_KIT_WORKER_QUEUES; default all)',
    )
    .option(
      '--token-store <path|url>',
      `sellers' OAuth tokens: a sealed file, or a postgres:// URL shared by workers on several hosts, without a password (env ${TOKEN_STORE_ENV}, the place for a URL with one)`,
    )
    .addHelpText(
      'after',
      `
Examples:
  $ TEMPORAL_ADDRESS=temporal.internal:7233 selling-kit worker
  $ TEMPORAL_ADDRESS=<ns>.<account>.tmprl.cloud:7233 TEMPORAL_NAMESPACE=<ns>.<account> TEMPORAL_API_KEY=… selling-kit worker
  $ selling-kit worker --tls-ca ca.pem --tls-cert client.pem --tls-key client.key
  $ selling-kit worker --max-concurrent-activities 20 --shutdown-grace-time 30s
  $ SELLING_KIT_TOKEN_STORE=postgres://worker@db.internal/selling_kit selling-kit worker`,
    )
    .action(action(run));
}
