// `selling-kit dev`: the main job. Starts the embedded stack (Temporal dev server with its data in
// <home>/dev, the simulator with the demo shop, the UI codec endpoint, a worker, and n8n with this
// repository's nodes and example workflows when it is installed), runs a bulk listing of
// examples/listings.csv with live progress, prints the report, the counts and the Temporal UI address,
// shows the n8n workflows reacting to a sale and a like, then keeps the stack up until Ctrl-C (or stops
// at once with --exit-when-done).
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { AesGcmCodec, startCodecServer, type CodecKeyring } from '@selling-kit/temporal-workflows';
import { devConfig, privateDir, type CliConfig } from '../config.ts';
import { action, type Context } from '../context.ts';
import { CliError, EXIT } from '../errors.ts';
import { launchDevN8n, readyLines, demoLines, setUpDevN8n, type DevN8n, type ReadyN8n } from '../n8n/dev.ts';
import type { Output } from '../output.ts';
import { adoptRunningTemporal, startTemporalDevServer, type DevServer } from '../stack.ts';
import { codecKey, issueDevClientKey, saveShop } from '../stores.ts';
import { runBulk } from './bulk.ts';
import { simulatePurchase, startDelistDemo } from './dev-delist.ts';
import {
  DISPATCH_WEBHOOK_PATH,
  showOrderFlow,
  startOrderEventsSink,
  type OrderEventsSink,
} from './dev-orders.ts';

export const EXAMPLE_FEED = fileURLToPath(new URL('../../examples/listings.csv', import.meta.url));

interface DevOptions {
  feed: string;
  feedRoot: string[];
  simPort: string;
  uiPort: string;
  codecPort: string;
  exitWhenDone?: boolean;
  useRunningTemporal?: boolean;
  job: boolean;
  n8n: boolean;
  n8nPort: string;
}

/** What `dev` started and must stop on the way out: each step's undo, run in reverse order of start. */
class Cleanups {
  private readonly steps: (() => Promise<unknown>)[] = [];

  add(step: () => Promise<unknown>): void {
    this.steps.push(step);
  }

  /** Every undo, last started first; one that fails does not keep the others from running. */
  async runAll(): Promise<void> {
    for (const step of this.steps.reverse()) await step().catch(() => undefined);
  }
}

/** Ctrl-C (SIGINT) or SIGTERM resolves `stopped`; `release` removes the handlers again. */
function stopOnSignal(): { stopped: Promise<void>; release(): void } {
  let stopRequested: () => void = () => undefined;
  const stopped = new Promise<void>((r) => (stopRequested = r));
  const onSignal = () => stopRequested();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    stopped,
    release: () => {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
    },
  };
}

/** The embedded stack, once every part of it answers. */
interface DevStack {
  codecServer: { url: string };
  temporal: DevServer;
  sim: RunningSimulator;
  /** Undefined when n8n is off (--no-n8n), not installed or failed to start. */
  n8n: DevN8n | undefined;
  /** The n8n set-up (credentials, workflows), started in the background: undefined when it failed. */
  n8nSetup: Promise<ReadyN8n | undefined>;
  /** Where the worker's order flows send their events (printed here, handed on to n8n once it is up). */
  orderEvents: OrderEventsSink;
}

async function dev(ctx: Context, opts: DevOptions): Promise<number> {
  const { out } = ctx;
  // Its own stores under <home>/dev (shops, sellers' tokens, job store): never the user's production
  // shops on this unauthenticated local stack, and its demo shops never in the user's credentials.
  const config = devConfig(ctx.config);
  const cleanups = new Cleanups();
  const signal = stopOnSignal();
  try {
    const stack = await startStack(config, opts, out, cleanups);
    out.info(stackLines(config, stack).join('\n'));
    const code = opts.job ? await runDemoJob(config, opts, out, stack, cleanups) : EXIT.ok;
    const n8nReady = await Promise.race([stack.n8nSetup, signal.stopped.then(() => undefined)]);
    if (stack.n8n && n8nReady) await showN8nDemo(stack.n8n, n8nReady, stack.sim, opts, out);
    if (!opts.exitWhenDone) {
      const editor = stack.n8n && n8nReady ? `, n8n editor ${stack.n8n.url}` : '';
      out.info(
        `\nthe stack keeps running (Temporal UI ${stack.temporal.uiUrl}${editor}); Ctrl-C stops everything.`,
      );
      await signal.stopped;
    }
    return code;
  } catch (e) {
    if (e instanceof CliError && e.code === 'interrupted') return EXIT.interrupted;
    throw e;
  } finally {
    signal.release();
    out.info('stopping the embedded stack …');
    await cleanups.runAll();
  }
}

/**
 * Starts every part of the stack, in an order that matters: the refusal of a foreign Temporal before
 * anything, n8n early (its ~30 s start overlaps the rest), Temporal, the simulator and its demo shops,
 * then the worker, and last the n8n set-up (which needs all of them). Each part's undo is added the
 * moment it runs, so a failure further on still stops what had started.
 */
async function startStack(
  config: CliConfig,
  opts: DevOptions,
  out: Output,
  cleanups: Cleanups,
): Promise<DevStack> {
  // Before anything starts: a Temporal server this command did not start is refused unless told.
  await adoptRunningTemporal(config.temporalAddress, opts.useRunningTemporal);
  // The home and its dev folder: 0700 (tightened when they exist with group or other access).
  privateDir(join(privateDir(config.home), 'dev'));
  // The local stack owns this machine's key: created on the first run (the only place one is minted).
  const keyring = codecKey(config, { create: true });
  const codecServer = await startUiCodecServer(keyring, opts);
  cleanups.add(() => codecServer.close());
  // n8n first: its ~30 s start overlaps Temporal's, the simulator's and the demo job.
  const n8nLaunch = launchN8nInBackground(config, opts, out);
  cleanups.add(async () => (await n8nLaunch)?.stop());
  const temporal = await startTemporal(config, opts, codecServer.url, out);
  cleanups.add(() => temporal.stop());
  const sim = await startDemoSimulator(Number(opts.simPort));
  cleanups.add(() => sim.close());
  await saveDemoShops(config, sim);
  const orderEvents = await startOrderEventsSink(out);
  cleanups.add(() => orderEvents.close());
  cleanups.add(await startDevWorker(config, temporal, opts, orderEvents.url));
  const n8n = await n8nLaunch;
  // The dev n8n's own client key, scoped to the demo shops (re-issued on every start; the worker reads
  // the keyring when it changes): n8n never holds the master key.
  const n8nKey = config.codec ? issueDevClientKey(config, keyring, ['demo', 'demo-us']) : '';
  // Started now, awaited after the demo job: n8n gets ready meanwhile.
  const n8nSetup = n8n
    ? setUpN8nInBackground(n8n, n8nKey, config, temporal, sim, out).then((ready) => {
        // Its "Dispatch reminders" workflow takes the order events from now on.
        if (ready) orderEvents.forwardTo(`${n8n.url}/webhook/${DISPATCH_WEBHOOK_PATH}`);
        return ready;
      })
    : Promise.resolve(undefined);
  return { codecServer, temporal, sim, n8n, n8nSetup, orderEvents };
}

/**
 * The Temporal UI's codec endpoint, on --codec-port or (when it is taken) any free port. It only reads:
 * it opens and strips, without the worker's checks; and since the dev UI cannot send a token, it
 * answers only the UI's origin, on 127.0.0.1, decode only.
 */
async function startUiCodecServer(
  keyring: CodecKeyring,
  opts: DevOptions,
): Promise<{ url: string; close(): Promise<void> }> {
  const codecServerOptions = {
    codec: new AesGcmCodec(keyring, { verify: false }),
    allowOrigin: [`http://127.0.0.1:${opts.uiPort}`, `http://localhost:${opts.uiPort}`],
    unauthenticated: true,
  };
  return startCodecServer({ ...codecServerOptions, port: Number(opts.codecPort) }).catch(() =>
    startCodecServer(codecServerOptions),
  );
}

/** n8n with this repository's nodes, when asked for and installed; the stack runs on without it. */
function launchN8nInBackground(
  config: CliConfig,
  opts: DevOptions,
  out: Output,
): Promise<DevN8n | undefined> {
  if (!opts.n8n) return Promise.resolve(undefined);
  return launchDevN8n(join(config.home, 'dev'), Number(opts.n8nPort), out).catch((e: Error) => {
    out.info(`n8n: not started (${e.message}); the rest of the stack runs without it`);
    return undefined;
  });
}

/** The Temporal dev server, its data in <home>/dev, its UI decoding payloads through the codec endpoint. */
async function startTemporal(
  config: CliConfig,
  opts: DevOptions,
  codecEndpoint: string,
  out: Output,
): Promise<DevServer> {
  const dataDir = join(config.home, 'dev');
  out.info(`starting Temporal dev server on ${config.temporalAddress} (data in ${dataDir}) …`);
  return startTemporalDevServer({
    address: config.temporalAddress,
    uiPort: Number(opts.uiPort),
    dataDir,
    useRunning: opts.useRunningTemporal,
    codecEndpoint,
  });
}

/** The simulator with its demo shops; admin API on the next port. A busy port is the user's to free. */
async function startDemoSimulator(simPort: number): Promise<RunningSimulator> {
  try {
    return await startSimulator({
      port: simPort,
      adminPort: simPort === 0 ? 0 : simPort + 1,
      demo: true,
      // The example feed's pictures are this simulator's own /demo-assets/ on port 4010.
      config: { fetchPictures: simPort === 4010 },
    });
  } catch (e) {
    throw new CliError(
      'simulator_port_busy',
      `the simulator cannot listen on 127.0.0.1:${simPort} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      EXIT.usage,
      'stop what uses the port, or pass --sim-port <port>',
    );
  }
}

/**
 * The demo shops, stored like any other so other terminals can use `--shop demo` against this stack:
 * "demo", and "demo-us" (same SKUs, USD), where the delist demo marks a sale of the first one sold.
 */
async function saveDemoShops(config: CliConfig, sim: RunningSimulator): Promise<void> {
  await saveShop(config, 'demo', {
    baseUrl: sim.url,
    apiKey: sim.demo!.apiKey,
    addedAt: new Date().toISOString(),
  });
  await saveShop(config, 'demo-us', {
    baseUrl: sim.url,
    apiKey: sim.demo!.usApiKey,
    addedAt: new Date().toISOString(),
  });
}

/** A worker on the stack's Temporal, running; returns its stop. */
async function startDevWorker(
  config: CliConfig,
  temporal: DevServer,
  opts: DevOptions,
  orderEventsUrl: string,
): Promise<() => Promise<void>> {
  // The worker runtime is loaded by the commands that run one (see worker-run.ts).
  const { startWorker } = await import('../worker-run.ts');
  const { worker, close } = await startWorker({ ...config, uiUrl: temporal.uiUrl }, undefined, {
    createKey: true,
    // Feeds of the demo (examples/) and of the folders named by --feed-root (besides the environment's
    // SELLING_KIT_FEED_ROOTS), never the folder `dev` happens to run in: this local stack is
    // unauthenticated. Plain http to this machine only.
    feeds: {
      roots: [dirname(EXAMPLE_FEED), ...opts.feedRoot.map((r) => resolve(r))],
      allowLoopbackHttp: true,
    },
    orderEvents: { url: orderEventsUrl },
  });
  const running = worker.run();
  return async () => {
    // The SDK's runtime may have begun the shutdown on Ctrl-C already.
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running;
    await close();
  };
}

/**
 * n8n's credentials (the demo shops, the webhook secret, the local Temporal with the dev n8n's client
 * key) and example workflows; Temporal is reached through its HTTP API (the gRPC port + 10).
 */
function setUpN8nInBackground(
  n8n: DevN8n,
  n8nKey: string,
  config: CliConfig,
  temporal: DevServer,
  sim: RunningSimulator,
  out: Output,
): Promise<ReadyN8n | undefined> {
  const [temporalHost, temporalPort] = temporal.address.split(':');
  return setUpDevN8n(n8n, {
    shop: { baseUrl: sim.url, apiKey: sim.demo!.apiKey },
    usShop: { baseUrl: sim.url, apiKey: sim.demo!.usApiKey },
    webhookSecret: sim.demo!.webhookSecret,
    temporal: {
      url: `http://${temporalHost}:${Number(temporalPort) + 10}`,
      namespace: config.namespace,
      taskQueue: config.taskQueue,
      clientKey: n8nKey,
    },
  }).catch((e: Error) => {
    out.info(`\nn8n: set-up failed (${e.message}); see ${n8n.process.logFile}`);
    return undefined;
  });
}

/** "embedded stack ready:" and where each part answers. */
function stackLines(config: CliConfig, { temporal, sim, codecServer, n8n }: DevStack): string[] {
  return [
    'embedded stack ready:',
    `  Temporal:    ${temporal.address} (UI ${temporal.uiUrl}${temporal.process ? '' : ', already running'})`,
    `  simulator:   ${sim.url} (demo shop "demo", seller ${sim.demo!.sellerId})`,
    `  codec:       ${codecServer.url} (the UI decodes payloads through it)`,
    `  worker:      task queue ${config.taskQueue}`,
    `  stores:      ${join(config.home, 'dev')} (its own shops and jobs; from another terminal: SELLING_KIT_CREDENTIALS=${config.credentialsFile})`,
    ...(n8n ? [`  n8n editor:  ${n8n.url} (starting, ~30 s; log ${n8n.process.logFile})`] : []),
  ];
}

/**
 * The demo: a bulk listing of the feed for the demo shop with live progress, then the delist on sale
 * (a purchase on "demo", the same SKU marked sold on "demo-us"). Returns the command's exit code.
 */
async function runDemoJob(
  config: CliConfig,
  opts: DevOptions,
  out: Output,
  { temporal, sim, orderEvents }: DevStack,
  cleanups: Cleanups,
): Promise<number> {
  out.info(`\nbulk listing of ${opts.feed} for the demo shop:`);
  const code = await runBulk({ config: { ...config, uiUrl: temporal.uiUrl }, out }, opts.feed, {
    shop: ['demo'],
    op: 'create',
    check: true,
  });
  // Delist everywhere on sale: a purchase on "demo", the same SKU marked sold on "demo-us".
  const delist = await startDelistDemo({ ...config, uiUrl: temporal.uiUrl }, sim);
  cleanups.add(() => delist.close());
  const { sku, delayMs, purchaseId } = await simulatePurchase(sim);
  out.info(
    [
      `\ndelist on sale (webhook receiver ${delist.receiver.url}):`,
      `  simulated purchase of ${sku} on "demo" → ${sku} marked sold on "demo-us" in ${delayMs} ms`,
      '  (signed v1:order.new → receiver → order flow → delist workflow → mark-as-sold on every other shop)',
      `\norder flow of ${purchaseId} (order:demo:${purchaseId}; a "day" is 5 s here): hand-off, reminders until shipped`,
    ].join('\n'),
  );
  await showOrderFlow({ ...config, uiUrl: temporal.uiUrl }, sim, orderEvents, purchaseId, out);
  // Invalid and refused items are in the example on purpose: a finished job is a successful demo.
  return code === EXIT.itemsFailed ? EXIT.ok : code;
}

/** n8n once set up: its editor, owner and workflows, and (after the demo job) its workflows reacting. */
async function showN8nDemo(
  n8n: DevN8n,
  ready: ReadyN8n,
  sim: RunningSimulator,
  opts: DevOptions,
  out: Output,
): Promise<void> {
  out.info(readyLines(n8n, ready).join('\n'));
  if (!opts.job) return;
  const lines = await demoLines(ready, {
    adminUrl: sim.adminUrl,
    sellerId: sim.demo!.sellerId,
    listings: sim.demo!.listings,
  }).catch((e: Error) => [`\nn8n demo: ${e.message}`]);
  out.info(lines.join('\n'));
}

export function registerDev(program: Command): void {
  program
    .command('dev')
    .description(
      'the main job: embedded Temporal + simulator + worker + n8n, then a demo bulk listing with live progress',
    )
    .option('--feed <file>', 'feed of the demo job', EXAMPLE_FEED)
    .option(
      '--feed-root <dir>',
      'a folder job feeds may be in, besides the examples (repeat for several; also SELLING_KIT_FEED_ROOTS)',
      (v, acc: string[]) => [...acc, v],
      [],
    )
    .option('--sim-port <port>', 'simulator API port (admin: the next one)', '4010')
    .option('--ui-port <port>', 'Temporal UI port', '8233')
    .option('--codec-port <port>', 'codec endpoint port for the UI', '8234')
    .option('--no-job', 'start the stack only')
    .option('--no-n8n', 'do not start n8n (installed by scripts/setup-n8n.sh)')
    .option('--n8n-port <port>', 'n8n editor port (0: a free one)', '5678')
    .option('--exit-when-done', 'stop the stack when the demo job ends (CI, tests)')
    .option(
      '--use-running-temporal',
      'use a Temporal server already answering on the address (refused by default: one this command did not start may be anyone’s)',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ selling-kit dev                      # then open the Temporal UI and the n8n editor it prints
  $ selling-kit dev --no-n8n             # without n8n
  $ selling-kit dev --no-job             # the stack only; run jobs from another terminal
  $ selling-kit dev --feed-root ~/feeds  # jobs may also read feeds under ~/feeds
  $ selling-kit dev --exit-when-done --json`,
    )
    .action(action(dev));
}
