// `selling-kit conformance`: checks a real API against our assumptions. Staging-safe probes on the
// run's own test listings (SKUs `skc-<run id>-…`), each compared with the spec's words or, where the
// spec is silent, with our choice; a table (or `--json`), then the clean-up of exactly those listings —
// also after a probe error or Ctrl-C. Default target: the simulator, embedded in this process.
import type { Command } from 'commander';
import {
  SellingApiError,
  TransportError,
  UnauthorizedError,
  type SellerDetails,
} from '@selling-kit/api-client';
import { action, type Context } from '../context.ts';
import { CliError, EXIT } from '../errors.ts';
import { credentialCheckClient } from '../preflight.ts';
import { ProbeContext, READ_AFTER_CREATE_DELAYS_MS } from '../conformance/context.ts';
import { startEmbeddedSimulator } from '../conformance/embedded.ts';
import { Ledger, newRunId, skuPrefix } from '../conformance/ledger.ts';
import { currencyOf, listingTemplate } from '../conformance/listing.ts';
import { planRun, type ConformanceFlags, type Plan } from '../conformance/plan.ts';
import { startReceiver, type Receiver } from '../conformance/receiver.ts';
import { humanReport, progressLine, type ConformanceReport } from '../conformance/report.ts';
import { cleanUp, runProbes, summarize, type CleanupReport } from '../conformance/runner.ts';
import type { ProbeResult } from '../conformance/probe.ts';

interface Target {
  baseUrl: string;
  apiKey: string;
  pictureUrl: string;
  webhookSecret?: string;
  /** Where the credential came from, for messages (never the credential). */
  keySource: string;
}

/** One GET /api/v1/shop/: the key works and the API answers, or a clear error before any probe. */
async function shopOf(target: Target): Promise<SellerDetails> {
  const client = credentialCheckClient(target, 15_000);
  try {
    return await client.shop.get();
  } catch (e) {
    if (e instanceof UnauthorizedError)
      throw new CliError(
        'credential_rejected',
        `the API key (${target.keySource}) was refused by ${target.baseUrl}: ${e.status} ${e.code}`,
        EXIT.credentials,
      );
    if (e instanceof SellingApiError && !(e instanceof TransportError))
      throw new CliError(
        'credential_check_failed',
        `GET /api/v1/shop/ at ${target.baseUrl} failed: ${e.status ?? ''} ${e.code}`,
        EXIT.credentials,
      );
    throw new CliError(
      'api_unreachable',
      `the API at ${target.baseUrl} cannot be reached: ${(e as Error).message}`,
      EXIT.credentials,
    );
  } finally {
    await client.close();
  }
}

async function conformance({ out }: Context, flags: ConformanceFlags): Promise<number> {
  const plan: Plan = await planRun(flags);
  const closers: (() => Promise<unknown>)[] = [];
  const probing = new AbortController();
  const cleaning = new AbortController();
  const onSignal = () => {
    if (!probing.signal.aborted) {
      out.info('interrupted: stopping the probes and cleaning up (Ctrl-C again stops the clean-up) …');
      probing.abort();
    } else cleaning.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    let target: Target;
    let receiver: Receiver | undefined;
    if (plan.kind === 'embedded-simulator') {
      out.info('starting the embedded simulator …');
      const sim = await startEmbeddedSimulator();
      closers.push(sim.close);
      target = { ...sim, pictureUrl: plan.pictureUrl ?? sim.pictureUrl, keySource: 'the demo shop' };
      receiver = await startReceiver({ host: '127.0.0.1', port: 0, path: '/webhooks' });
    } else {
      target = {
        baseUrl: plan.baseUrl!,
        apiKey: plan.apiKey!,
        pictureUrl: plan.pictureUrl!,
        webhookSecret: plan.webhookSecret,
        keySource: `$${plan.apiKeyEnv}`,
      };
      if (plan.receiver) receiver = await startReceiver(plan.receiver);
    }
    if (receiver) closers.push(receiver.close);
    const shop = await shopOf(target);

    const runId = newRunId();
    const ctx = new ProbeContext({
      baseUrl: target.baseUrl,
      apiKey: target.apiKey,
      ledger: new Ledger(runId),
      template: listingTemplate({
        countryCode: shop.country_code,
        currency: plan.currency ?? currencyOf(shop.country_code),
        pictureUrl: target.pictureUrl,
        overrides: plan.listingOverrides,
      }),
      settings: {
        probeRateLimit: plan.probeRateLimit,
        webhookTimeoutMs: plan.webhookTimeoutMs,
        readAfterCreateDelaysMs: READ_AFTER_CREATE_DELAYS_MS,
      },
      receiver,
      webhookSecret: target.webhookSecret,
      signal: probing.signal,
    });
    closers.push(() => ctx.close());
    out.info(
      `conformance of ${target.baseUrl} (${plan.kind}, shop ${shop.username}), run ${runId}: ${plan.probes.length} probes, test SKUs ${skuPrefix(runId)}…`,
    );

    let results: ProbeResult[] = [];
    let interrupted = false;
    let cleanup: CleanupReport | undefined;
    try {
      ({ results, interrupted } = await runProbes(ctx, plan.probes, (r) => out.info(progressLine(r))));
    } finally {
      out.info('cleaning up the test listings …');
      cleanup = await cleanUp(ctx, ctx.client, cleaning.signal);
      if (cleanup.left.length)
        out.info(`WARNING: test listings left (delete them by SKU): ${cleanup.left.join(', ')}`);
    }
    const summary = summarize(results, interrupted || probing.signal.aborted);
    const report: ConformanceReport = {
      runId,
      skuPrefix: skuPrefix(runId),
      target: { kind: plan.kind, baseUrl: target.baseUrl },
      probes: results,
      summary: { ...summary, cleanup },
    };
    out.result(report, () => humanReport(report));
    if (summary.interrupted) return EXIT.interrupted;
    const clean = cleanup.left.length === 0 && cleanup.webhookSubscription?.removed !== false;
    return summary.differs === 0 && summary.blocked === 0 && clean ? EXIT.ok : EXIT.conformanceDiffers;
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    for (const close of closers.reverse()) await close().catch(() => undefined);
  }
}

export function registerConformance(program: Command): void {
  program
    .command('conformance')
    .description(
      'check an API against our assumptions: staging-safe probes on its own test listings, a table of spec / our choice / answer',
    )
    .option('--env <preset>', 'simulator (embedded, default) | staging', 'simulator')
    .option(
      '--base-url <url>',
      'another API host (e.g. a simulator you run); needs --api-key-env and --picture-url',
    )
    .option('--api-key-env <name>', "environment variable holding the shop's API key (staging, --base-url)")
    .option(
      '--picture-url <url>',
      'a live JPEG/PNG/WebP for the test listings (required off the embedded simulator)',
    )
    .option('--currency <code>', 'currency of the test listings (default: from the shop country)')
    .option('--listing <file>', 'JSON object of listing fields laid over the test listing (product_type, …)')
    .option(
      '--webhook-receiver <url>',
      'URL the service delivers webhooks to, reaching this command: enables the test like and purchase',
    )
    .option(
      '--webhook-listen <[host:]port>',
      'where the receiver listens (default: the port of a loopback --webhook-receiver)',
    )
    .option('--webhook-secret-env <name>', 'environment variable holding the webhook signing secret')
    .option('--webhook-timeout <seconds>', 'wait for each webhook (default 10 embedded, 60 otherwise)')
    .option('--probe-rate-limit', 'exhaust the create/full-update allowance once, to read one 429')
    .option(
      '--only <ids>',
      'comma-separated probe id prefixes (e.g. products,rules.sku); their prerequisites run too',
    )
    .addHelpText(
      'after',
      `
Every listing it creates has the SKU prefix skc-<run id>-; the clean-up deletes exactly those (also after
an error or Ctrl-C) and checks each is gone. A test purchase is sent only with a webhook receiver, only on
its own listing, and only through the staging-only purchase endpoint. Production is refused.

Examples:
  $ selling-kit conformance                                   # the embedded simulator
  $ selling-kit conformance --json --probe-rate-limit
  $ STAGING_KEY=… selling-kit conformance --env staging --api-key-env STAGING_KEY \\
      --picture-url https://example.com/tee.jpg
  $ selling-kit conformance --env staging --api-key-env STAGING_KEY --picture-url … \\
      --webhook-receiver https://my-tunnel.example/hooks --webhook-listen 8787 --webhook-secret-env WH_SECRET

Exit codes: 0 every line as expected, 9 some line differs or is blocked (or a test listing was left),
2 bad flags or a missing environment variable (nothing sent), 6 API key refused / API unreachable,
130 interrupted (after the clean-up).`,
    )
    .action(action(conformance));
}
