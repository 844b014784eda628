#!/usr/bin/env node
// selling-kit: start and watch Selling API jobs on Temporal, manage shops and sellers, run the stack.
import { Command } from 'commander';
import { DEFAULT_TASK_QUEUE } from '@selling-kit/temporal-workflows/contract';
import { registerAuth } from './commands/auth.ts';
import { registerBulk } from './commands/bulk.ts';
import { registerCodecServer } from './commands/codec-server.ts';
import { registerConformance } from './commands/conformance.ts';
import { registerDev } from './commands/dev.ts';
import { registerJobs } from './commands/jobs.ts';
import { registerOrders } from './commands/orders.ts';
import { registerKeys } from './commands/keys.ts';
import { registerSchedules } from './commands/schedules.ts';
import { registerShops } from './commands/shops.ts';
import { registerSimulator } from './commands/simulator.ts';
import { registerWebhooks } from './commands/webhooks.ts';
import { registerWorker } from './commands/worker.ts';

export function buildProgram(): Command {
  const program = new Command()
    .name('selling-kit')
    .description(
      'Partner toolkit for the marketplace Selling API: bulk jobs on Temporal, shops, sellers, the local stack.',
    )
    .option('--json', 'machine-readable output: one JSON document on stdout')
    .option(
      '--home <dir>',
      'config, credentials, token store and reports (env SELLING_KIT_HOME, default ~/.selling-kit)',
    )
    .option('--temporal <address>', 'Temporal frontend (env TEMPORAL_ADDRESS, default 127.0.0.1:7233)')
    .option('--namespace <ns>', 'Temporal namespace (env TEMPORAL_NAMESPACE, default "default")')
    .option('--task-queue <name>', `task queue (env SELLING_KIT_TASK_QUEUE, default "${DEFAULT_TASK_QUEUE}")`)
    .option(
      '--temporal-profile <name>',
      "profile of Temporal's config file temporal.toml (env TEMPORAL_PROFILE; file: env TEMPORAL_CONFIG_FILE)",
    )
    .option(
      '--tls-ca <path>',
      "PEM of the CA that signed the server's certificate; turns TLS on (env TEMPORAL_TLS_SERVER_CA_CERT_PATH)",
    )
    .option('--tls-cert <path>', 'client certificate for mTLS (env TEMPORAL_TLS_CLIENT_CERT_PATH)')
    .option('--tls-key <path>', "the client certificate's private key (env TEMPORAL_TLS_CLIENT_KEY_PATH)")
    .option(
      '--tls-server-name <name>',
      "name the server's certificate carries, when not the address's host (env TEMPORAL_TLS_SERVER_NAME)",
    )
    .showHelpAfterError('(add --help for usage and examples)')
    .exitOverride((err) => {
      // Usage errors (unknown option, missing argument, bad choice) exit 2; --help / --version exit 0.
      process.exit(err.exitCode === 0 ? 0 : 2);
    });
  registerDev(program);
  registerBulk(program);
  registerJobs(program);
  registerOrders(program);
  registerSchedules(program);
  registerShops(program);
  registerAuth(program);
  registerKeys(program);
  registerWorker(program);
  registerCodecServer(program);
  registerWebhooks(program);
  registerSimulator(program);
  registerConformance(program);
  program.addHelpText(
    'after',
    `
Examples:
  $ selling-kit dev                                   # the whole kit, one command
  $ selling-kit bulk listings.csv --shop demo --op create
  $ selling-kit jobs list --json
  $ echo "$KEY" | selling-kit shops add my-shop --api-key-stdin --env production`,
  );
  return program;
}

if (import.meta.main) {
  await buildProgram().parseAsync(process.argv);
}
