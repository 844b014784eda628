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
import { AesGcmCodec, startCodecServer } from '@selling-kit/temporal-workflows';
import { devConfig, privateDir } from '../config.ts';
import { action, type Context } from '../context.ts';
import { CliError, EXIT } from '../errors.ts';
import { launchDevN8n, readyLines, demoLines, setUpDevN8n, type DevN8n } from '../n8n/dev.ts';
import { adoptRunningTemporal, startTemporalDevServer } from '../stack.ts';
import { codecKey, issueDevClientKey, saveShop } from '../stores.ts';
import { runBulk } from './bulk.ts';
import { simulatePurchase, startDelistDemo } from './dev-delist.ts';

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

// eslint-disable-next-line max-lines-per-function -- over the house's limit: to be split (issue 25)
async function dev(ctx: Context, opts: DevOptions): Promise<number> {
  const { out } = ctx;
  // Its own stores under <home>/dev (shops, sellers' tokens, job store): never the user's production
  // shops on this unauthenticated local stack, and its demo shops never in the user's credentials.
  const config = devConfig(ctx.config);
  const cleanups: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  };
  let stopRequested: () => void = () => undefined;
  const stopped = new Promise<void>((r) => (stopRequested = r));
  const onSignal = () => stopRequested();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    // Before anything starts: a Temporal server this command did not start is refused unless told.
    await adoptRunningTemporal(config.temporalAddress, opts.useRunningTemporal);
    // The home and its dev folder: 0700 (tightened when they exist with group or other access).
    privateDir(join(privateDir(config.home), 'dev'));
    // The local stack owns this machine's key: created on the first run (the only place one is minted).
    const keyring = codecKey(config, { create: true });
    // The UI's codec endpoint only reads: it opens and strips, without the worker's checks.
    const codec = new AesGcmCodec(keyring, { verify: false });
    // For the dev UI only (it cannot send a token): its origin alone, on 127.0.0.1, decode only.
    const codecServerOptions = {
      codec,
      allowOrigin: [`http://127.0.0.1:${opts.uiPort}`, `http://localhost:${opts.uiPort}`],
      unauthenticated: true,
    };
    const codecServer = await startCodecServer({ ...codecServerOptions, port: Number(opts.codecPort) }).catch(
      () => startCodecServer(codecServerOptions),
    );
    cleanups.push(() => codecServer.close());
    // n8n first: its ~30 s start overlaps Temporal's, the simulator's and the demo job.
    const devHome = join(config.home, 'dev');
    const n8nLaunch: Promise<DevN8n | undefined> = opts.n8n
      ? launchDevN8n(devHome, Number(opts.n8nPort), out).catch((e: Error) => {
          out.info(`n8n: not started (${e.message}); the rest of the stack runs without it`);
          return undefined;
        })
      : Promise.resolve(undefined);
    cleanups.push(async () => (await n8nLaunch)?.stop());
    out.info(
      `starting Temporal dev server on ${config.temporalAddress} (data in ${join(config.home, 'dev')}) …`,
    );
    const temporal = await startTemporalDevServer({
      address: config.temporalAddress,
      uiPort: Number(opts.uiPort),
      dataDir: join(config.home, 'dev'),
      useRunning: opts.useRunningTemporal,
      codecEndpoint: codecServer.url,
    });
    cleanups.push(() => temporal.stop());
    const simPort = Number(opts.simPort);
    let sim: RunningSimulator;
    try {
      sim = await startSimulator({
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
    cleanups.push(() => sim.close());
    // The demo shop, stored like any other so other terminals can use `--shop demo` against this stack.
    await saveShop(config, 'demo', {
      baseUrl: sim.url,
      apiKey: sim.demo!.apiKey,
      addedAt: new Date().toISOString(),
    });
    // The second demo shop (same SKUs, USD): where the delist demo marks a sale of the first one sold.
    await saveShop(config, 'demo-us', {
      baseUrl: sim.url,
      apiKey: sim.demo!.usApiKey,
      addedAt: new Date().toISOString(),
    });
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
    });
    const running = worker.run();
    cleanups.push(async () => {
      // The SDK's runtime may have begun the shutdown on Ctrl-C already.
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await close();
    });
    const n8n = await n8nLaunch;
    // The dev n8n's own client key, scoped to the demo shops (re-issued on every start; the worker reads
    // the keyring when it changes): n8n never holds the master key.
    const n8nKey = config.codec ? issueDevClientKey(config, keyring, ['demo', 'demo-us']) : '';
    const [temporalHost, temporalPort] = temporal.address.split(':');
    // Started now, awaited after the demo job: n8n gets ready meanwhile.
    const n8nSetup = n8n
      ? setUpDevN8n(n8n, {
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
        })
      : Promise.resolve(undefined);
    out.info(
      [
        'embedded stack ready:',
        `  Temporal:    ${temporal.address} (UI ${temporal.uiUrl}${temporal.process ? '' : ', already running'})`,
        `  simulator:   ${sim.url} (demo shop "demo", seller ${sim.demo!.sellerId})`,
        `  codec:       ${codecServer.url} (the UI decodes payloads through it)`,
        `  worker:      task queue ${config.taskQueue}`,
        `  stores:      ${join(config.home, 'dev')} (its own shops and jobs; from another terminal: SELLING_KIT_CREDENTIALS=${config.credentialsFile})`,
        ...(n8n ? [`  n8n editor:  ${n8n.url} (starting, ~30 s; log ${n8n.process.logFile})`] : []),
      ].join('\n'),
    );
    let code: number = EXIT.ok;
    if (opts.job) {
      out.info(`\nbulk listing of ${opts.feed} for the demo shop:`);
      code = await runBulk({ config: { ...config, uiUrl: temporal.uiUrl }, out }, opts.feed, {
        shop: ['demo'],
        op: 'create',
        check: true,
      });
      // Invalid and refused items are in the example on purpose: a finished job is a successful demo.
      if (code === EXIT.itemsFailed) code = EXIT.ok;
      // Delist everywhere on sale: a purchase on "demo", the same SKU marked sold on "demo-us".
      const delist = await startDelistDemo({ ...config, uiUrl: temporal.uiUrl }, sim);
      cleanups.push(() => delist.close());
      const { sku, delayMs } = await simulatePurchase(sim);
      out.info(
        [
          `\ndelist on sale (webhook receiver ${delist.receiver.url}):`,
          `  simulated purchase of ${sku} on "demo" → ${sku} marked sold on "demo-us" in ${delayMs} ms`,
          '  (signed v1:order.new → receiver → delist workflow → mark-as-sold on every other shop)',
        ].join('\n'),
      );
    }
    const n8nReady = await Promise.race([n8nSetup, stopped.then(() => undefined)]);
    if (n8n && n8nReady) {
      out.info(readyLines(n8n, n8nReady).join('\n'));
      if (opts.job)
        out.info(
          (
            await demoLines(n8nReady, {
              adminUrl: sim.adminUrl,
              sellerId: sim.demo!.sellerId,
              listings: sim.demo!.listings,
            }).catch((e: Error) => [`\nn8n demo: ${e.message}`])
          ).join('\n'),
        );
    }
    if (!opts.exitWhenDone) {
      const editor = n8n && n8nReady ? `, n8n editor ${n8n.url}` : '';
      out.info(
        `\nthe stack keeps running (Temporal UI ${temporal.uiUrl}${editor}); Ctrl-C stops everything.`,
      );
      await stopped;
    }
    return code;
  } catch (e) {
    if (e instanceof CliError && e.code === 'interrupted') return EXIT.interrupted;
    throw e;
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    out.info('stopping the embedded stack …');
    await stopAll();
  }
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
