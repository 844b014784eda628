// From the command's flags to a checked plan, before anything is sent: which API (the embedded simulator,
// staging, or a base URL), its credential (from an environment variable, never a flag), the test
// picture, the webhook receiver and which probes. Every refusal is a usage error naming the flag or
// the variable.
import { readFileSync } from 'node:fs';
import { PRODUCTION_BASE_URL } from '@selling-kit/api-client/core';
import { baseUrlFrom } from '../config.ts';
import { CliError, EXIT } from '../errors.ts';
import { readSecret } from '../secrets.ts';
import type { Probe } from './probe.ts';
import { selectProbes } from './probes.ts';
import { isLoopbackUrl } from './receiver.ts';

export interface ConformanceFlags {
  env: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  pictureUrl?: string;
  currency?: string;
  listing?: string;
  webhookReceiver?: string;
  webhookListen?: string;
  webhookSecretEnv?: string;
  webhookTimeout?: string;
  probeRateLimit?: boolean;
  only?: string;
}

export type TargetKind = 'embedded-simulator' | 'staging' | 'base-url';

export interface ReceiverPlan {
  host: string;
  port: number;
  path: string;
  /** What the service posts to; undefined = the receiver's own loopback URL. */
  publicUrl?: string;
}

export interface Plan {
  kind: TargetKind;
  /** Remote targets only (the embedded simulator brings its own URL, key and picture). */
  baseUrl?: string;
  apiKey?: string;
  apiKeyEnv?: string;
  pictureUrl?: string;
  webhookSecret?: string;
  receiver?: ReceiverPlan;
  currency?: string;
  listingOverrides: Record<string, unknown>;
  webhookTimeoutMs: number;
  probeRateLimit: boolean;
  probes: Probe[];
}

const usage = (code: string, message: string, hint?: string) => new CliError(code, message, EXIT.usage, hint);

const REMOTE_ONLY = [
  ['apiKeyEnv', '--api-key-env'],
  ['webhookReceiver', '--webhook-receiver'],
  ['webhookListen', '--webhook-listen'],
  ['webhookSecretEnv', '--webhook-secret-env'],
] as const;

function httpUrl(value: string, flag: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usage('bad_url', `${flag} "${value}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw usage('bad_url', `${flag} must be an http or https URL, got ${url.protocol}`);
  return url;
}

function readListingFile(path: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw usage('bad_listing_file', `--listing ${path} cannot be read as JSON (${(e as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw usage('bad_listing_file', `--listing ${path} must hold one JSON object (listing fields)`);
  if ('sku' in parsed)
    throw usage('bad_listing_file', `--listing ${path}: leave out "sku" (each probe sets its own SKU)`);
  return parsed as Record<string, unknown>;
}

function receiverPlan(flags: ConformanceFlags): ReceiverPlan | undefined {
  if (!flags.webhookReceiver) return undefined;
  const url = httpUrl(flags.webhookReceiver, '--webhook-receiver');
  const path = url.pathname || '/';
  if (flags.webhookListen) {
    const m = /^(?:(.+):)?(\d{1,5})$/.exec(flags.webhookListen);
    const port = Number(m?.[2]);
    if (!m || port > 65_535)
      throw usage(
        'bad_webhook_listen',
        `--webhook-listen "${flags.webhookListen}": give [host:]port, e.g. 8787`,
      );
    return { host: m[1] ?? '127.0.0.1', port, path, publicUrl: url.toString() };
  }
  if (!isLoopbackUrl(url) || !url.port)
    throw usage(
      'webhook_listen_required',
      `--webhook-receiver ${url.origin} is not a loopback URL with a port: say where this command listens with --webhook-listen [host:]port`,
      'e.g. a tunnel from the receiver URL to --webhook-listen 8787',
    );
  const port = Number(url.port);
  // Port 0: any free port, and the receiver's own URL is the one registered.
  return { host: '127.0.0.1', port, path, publicUrl: port === 0 ? undefined : url.toString() };
}

export async function planRun(flags: ConformanceFlags): Promise<Plan> {
  if (flags.env === 'production')
    throw usage(
      'production_refused',
      'conformance creates, changes, sells and deletes test listings: run it against the simulator or staging, never production',
    );
  if (flags.env !== 'simulator' && flags.env !== 'staging')
    throw usage('bad_env', `--env must be simulator or staging, got "${flags.env}"`);
  const kind: TargetKind = flags.baseUrl
    ? 'base-url'
    : flags.env === 'staging'
      ? 'staging'
      : 'embedded-simulator';
  const only = (flags.only ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const { probes, unknown } = selectProbes(only);
  if (unknown.length) throw usage('unknown_probe', `--only: no probe id starts with ${unknown.join(', ')}`);
  const timeoutSec = flags.webhookTimeout === undefined ? undefined : Number(flags.webhookTimeout);
  if (timeoutSec !== undefined && !(timeoutSec > 0))
    throw usage('bad_webhook_timeout', `--webhook-timeout must be a positive number of seconds`);
  if (flags.currency !== undefined && !/^[A-Z]{3}$/.test(flags.currency))
    throw usage('bad_currency', `--currency must be an ISO 4217 code such as GBP, got "${flags.currency}"`);
  const plan: Plan = {
    kind,
    currency: flags.currency,
    listingOverrides: flags.listing ? readListingFile(flags.listing) : {},
    webhookTimeoutMs: (timeoutSec ?? (kind === 'embedded-simulator' ? 10 : 60)) * 1000,
    probeRateLimit: Boolean(flags.probeRateLimit),
    probes,
  };
  if (flags.pictureUrl) plan.pictureUrl = httpUrl(flags.pictureUrl, '--picture-url').toString();

  if (kind === 'embedded-simulator') {
    for (const [key, flag] of REMOTE_ONLY)
      if (flags[key])
        throw usage(
          'remote_only_flag',
          `${flag} is for --env staging or --base-url; the embedded simulator uses its own demo shop and receiver`,
        );
    return plan;
  }

  const baseUrl = baseUrlFrom({ env: flags.env, baseUrl: flags.baseUrl });
  if (baseUrl === PRODUCTION_BASE_URL.replace(/\/$/, ''))
    throw usage(
      'production_refused',
      `${baseUrl} is the production API: conformance runs against staging only`,
    );
  if (!flags.apiKeyEnv)
    throw usage(
      'api_key_required',
      `${kind === 'staging' ? '--env staging' : '--base-url'} needs --api-key-env <VAR>, the environment variable holding the shop's API key`,
    );
  if (!plan.pictureUrl)
    throw usage(
      'picture_url_required',
      'test listings need a picture the service can download: give --picture-url <url> (a live JPEG, PNG or WebP, no transparency)',
    );
  plan.receiver = receiverPlan(flags);
  if (plan.receiver && !flags.webhookSecretEnv)
    throw usage(
      'webhook_secret_required',
      '--webhook-receiver needs --webhook-secret-env <VAR>, the environment variable holding the webhook signing secret',
    );
  plan.baseUrl = baseUrl;
  plan.apiKeyEnv = flags.apiKeyEnv;
  plan.apiKey = await readSecret({ fromEnv: flags.apiKeyEnv }, 'API key');
  if (plan.receiver)
    plan.webhookSecret = await readSecret({ fromEnv: flags.webhookSecretEnv }, 'webhook secret');
  return plan;
}
