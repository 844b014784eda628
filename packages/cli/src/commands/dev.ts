// `selling-kit dev`: the main job. Starts the embedded stack (Temporal dev server with its data in
// <home>/dev, the simulator with the demo shop, the UI codec endpoint, a worker), runs a bulk listing of
// examples/listings.csv with live progress, prints the report, the counts and the Temporal UI address,
// then keeps the stack up until Ctrl-C (or stops at once with --exit-when-done).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { AesGcmCodec, startCodecServer } from '@selling-kit/temporal-workflows';
import { action, type Context } from '../context.ts';
import { CliError, EXIT } from '../errors.ts';
import { startTemporalDevServer } from '../stack.ts';
import { codecKey, saveShop } from '../stores.ts';
import { runBulk } from './bulk.ts';
import { startWorker } from './worker.ts';

export const EXAMPLE_FEED = fileURLToPath(new URL('../../../../examples/listings.csv', import.meta.url));

interface DevOptions {
  feed: string;
  simPort: string;
  uiPort: string;
  codecPort: string;
  exitWhenDone?: boolean;
  job: boolean;
}

async function dev(ctx: Context, opts: DevOptions): Promise<number> {
  const { config, out } = ctx;
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
    // The local stack owns this machine's key: created on the first run (the only place one is minted).
    const codec = new AesGcmCodec(codecKey(config, { create: true }));
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
    out.info(
      `starting Temporal dev server on ${config.temporalAddress} (data in ${join(config.home, 'dev')}) …`,
    );
    const temporal = await startTemporalDevServer({
      address: config.temporalAddress,
      uiPort: Number(opts.uiPort),
      dataDir: join(config.home, 'dev'),
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
    const { worker, close } = await startWorker({ ...config, uiUrl: temporal.uiUrl }, undefined, {
      createKey: true,
    });
    const running = worker.run();
    cleanups.push(async () => {
      // The SDK's runtime may have begun the shutdown on Ctrl-C already.
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await close();
    });
    out.info(
      [
        'embedded stack ready:',
        `  Temporal:    ${temporal.address} (UI ${temporal.uiUrl}${temporal.process ? '' : ', already running'})`,
        `  simulator:   ${sim.url} (demo shop "demo", seller ${sim.demo!.sellerId})`,
        `  codec:       ${codecServer.url} (the UI decodes payloads through it)`,
        `  worker:      task queue ${config.taskQueue}`,
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
    }
    if (!opts.exitWhenDone) {
      out.info(`\nthe stack keeps running (Temporal UI ${temporal.uiUrl}); Ctrl-C stops everything.`);
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
      'the main job: embedded Temporal + simulator + worker, then a demo bulk listing with live progress',
    )
    .option('--feed <file>', 'feed of the demo job', EXAMPLE_FEED)
    .option('--sim-port <port>', 'simulator API port (admin: the next one)', '4010')
    .option('--ui-port <port>', 'Temporal UI port', '8233')
    .option('--codec-port <port>', 'codec endpoint port for the UI', '8234')
    .option('--no-job', 'start the stack only')
    .option('--exit-when-done', 'stop the stack when the demo job ends (CI, tests)')
    .addHelpText(
      'after',
      `
Examples:
  $ selling-kit dev                      # then open the Temporal UI it prints
  $ selling-kit dev --no-job             # the stack only; run jobs from another terminal
  $ selling-kit dev --exit-when-done --json`,
    )
    .action(action(dev));
}
