// Where the CLI keeps things and how it reaches Temporal, from (strongest first) flags, environment
// variables, the config file `$SELLING_KIT_HOME/config.json`, and defaults. Secrets are never in the
// config file: API keys live in credentials.json (mode 0600), OAuth tokens in the sealed token store.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { PRODUCTION_BASE_URL, STAGING_BASE_URL } from '@selling-kit/api-client/core';
import { CliError, EXIT } from './errors.ts';

/** Base-URL presets (`--env`): the embedded simulator, and the service's hosts from the public reference. */
export const BASE_URL_PRESETS = {
  simulator: 'http://127.0.0.1:4010',
  staging: STAGING_BASE_URL,
  production: PRODUCTION_BASE_URL,
} as const;
export type Preset = keyof typeof BASE_URL_PRESETS;

export interface CliConfig {
  /** SELLING_KIT_HOME, default ~/.selling-kit. */
  home: string;
  /** TEMPORAL_ADDRESS, default 127.0.0.1:7233. */
  temporalAddress: string;
  /** TEMPORAL_NAMESPACE, default "default". */
  namespace: string;
  /** SELLING_KIT_TASK_QUEUE, default "selling-kit". */
  taskQueue: string;
  /** SELLING_KIT_REPORT_DIR, default <home>/reports. Read by the CLI, written by the worker. */
  reportDir: string;
  /** SELLING_KIT_CREDENTIALS, default <home>/credentials.json: shop → { baseUrl, apiKey }. */
  credentialsFile: string;
  /** SELLING_KIT_TOKEN_STORE, default <home>/tokens.sealed: connected sellers' OAuth tokens. */
  tokenStoreFile: string;
  /** SELLING_KIT_KEY_FILE, default <home>/codec.key (generated); SELLING_KIT_CODEC_KEY overrides it. */
  keyFile: string;
  /** SELLING_KIT_CODEC=0 turns payload encryption off (worker and CLI must agree). Default on. */
  codec: boolean;
  /** SELLING_KIT_UI_URL, default http://127.0.0.1:8233 (the dev server's UI). */
  uiUrl: string;
}

export interface ConfigFlags {
  home?: string;
  temporal?: string;
  namespace?: string;
  taskQueue?: string;
}

type FileConfig = Partial<Omit<CliConfig, 'home'>>;

function readFileConfig(home: string): FileConfig {
  const path = join(home, 'config.json');
  if (!existsSync(path)) return {};
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as FileConfig;
  } catch (e) {
    throw new CliError('bad_config', `${path} is not valid JSON: ${(e as Error).message}`, EXIT.usage);
  }
}

export function loadConfig(flags: ConfigFlags = {}, env: NodeJS.ProcessEnv = process.env): CliConfig {
  const home = resolve(flags.home ?? env.SELLING_KIT_HOME ?? join(homedir(), '.selling-kit'));
  const file = readFileConfig(home);
  const pick = (flag: string | undefined, name: string, key: keyof FileConfig, fallback: string) =>
    flag ?? env[name] ?? (file[key] as string | undefined) ?? fallback;
  return {
    home,
    temporalAddress: pick(flags.temporal, 'TEMPORAL_ADDRESS', 'temporalAddress', '127.0.0.1:7233'),
    namespace: pick(flags.namespace, 'TEMPORAL_NAMESPACE', 'namespace', 'default'),
    taskQueue: pick(flags.taskQueue, 'SELLING_KIT_TASK_QUEUE', 'taskQueue', 'selling-kit'),
    reportDir: resolve(pick(undefined, 'SELLING_KIT_REPORT_DIR', 'reportDir', join(home, 'reports'))),
    credentialsFile: resolve(
      pick(undefined, 'SELLING_KIT_CREDENTIALS', 'credentialsFile', join(home, 'credentials.json')),
    ),
    tokenStoreFile: resolve(
      pick(undefined, 'SELLING_KIT_TOKEN_STORE', 'tokenStoreFile', join(home, 'tokens.sealed')),
    ),
    keyFile: resolve(pick(undefined, 'SELLING_KIT_KEY_FILE', 'keyFile', join(home, 'codec.key'))),
    codec: (env.SELLING_KIT_CODEC ?? (file.codec === false ? '0' : '1')) !== '0',
    uiUrl: pick(undefined, 'SELLING_KIT_UI_URL', 'uiUrl', 'http://127.0.0.1:8233'),
  };
}

/** `--env` or `--base-url` → a base URL. */
export function baseUrlFrom(opts: { env?: string; baseUrl?: string }): string {
  if (opts.baseUrl) {
    try {
      return new URL(opts.baseUrl).toString().replace(/\/$/, '');
    } catch {
      throw new CliError('bad_base_url', `--base-url "${opts.baseUrl}" is not a URL`, EXIT.usage);
    }
  }
  const preset = (opts.env ?? 'simulator') as Preset;
  if (!(preset in BASE_URL_PRESETS))
    throw new CliError(
      'bad_env',
      `--env must be one of ${Object.keys(BASE_URL_PRESETS).join(', ')}, got "${opts.env}"`,
      EXIT.usage,
    );
  return BASE_URL_PRESETS[preset];
}
