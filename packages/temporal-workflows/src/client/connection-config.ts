// Where clients and workers connect, from Temporal's own environment configuration
// (@temporalio/envconfig: a profile of `temporal.toml`, then TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
// TEMPORAL_API_KEY, TEMPORAL_TLS_*), with the caller's flags on top. One loader for the CLI, the worker
// entry points and tests: the same files and variables as the `temporal` CLI and every Temporal SDK, so a
// Temporal Cloud namespace (address + API key, or mTLS) or a TLS cluster needs no selling-kit-specific
// setting. Every value remembers where it came from (a flag, a variable, a profile key), so a bad file or a
// failed TLS handshake names the setting to fix. Errors name paths and settings, never key material or the
// API key.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect as tlsConnect } from 'node:tls';
import {
  loadClientConfigProfile,
  type ClientConfigProfile,
  type ConfigDataSource,
} from '@temporalio/envconfig';
import type { TLSConfig } from '@temporalio/client';

/** The local dev server's frontend (`selling-kit dev`, `temporal server start-dev`). */
export const DEFAULT_TEMPORAL_ADDRESS = '127.0.0.1:7233';
export const DEFAULT_NAMESPACE = 'default';

/** What a caller's flags may set; each wins over the profile and the environment. */
export interface ConnectionFlags {
  address?: string;
  namespace?: string;
  /** A profile of the config file (else TEMPORAL_PROFILE, else "default"). */
  profile?: string;
  /** The config file (else TEMPORAL_CONFIG_FILE, else <user config dir>/temporalio/temporal.toml). */
  configFile?: string;
  /** PEM file of the CA that signed the server's certificate (turns TLS on). */
  tlsCaPath?: string;
  /** PEM files of the client certificate and its key, for mTLS (both or neither). */
  tlsCertPath?: string;
  tlsKeyPath?: string;
  /** The name the server's certificate must carry, when it is not the address's host. */
  tlsServerName?: string;
}

/** How the caller calls its flags, e.g. `{ address: '--temporal' }`, for messages. */
export type FlagNames = Partial<Record<keyof ConnectionFlags, string>>;

export interface TemporalConnectionConfig {
  address: string;
  namespace: string;
  /** For `Connection.connect` / `NativeConnection.connect`; undefined = plain TCP. */
  tls?: TLSConfig | boolean;
  apiKey?: string;
  /** gRPC metadata of the profile / TEMPORAL_GRPC_META_* (e.g. a Cloud account header). */
  metadata?: Record<string, string>;
  /** Where each setting came from (a flag, a variable, `<file> [profile.x] key`, or "default"). */
  from: {
    address: string;
    namespace: string;
    apiKey?: string;
    tls?: string;
    serverCa?: string;
    clientCert?: string;
    clientKey?: string;
  };
}

/** A setting that cannot be used: the message names it (and a path), never its secret value. */
export class ConnectionConfigError extends Error {
  override name = 'ConnectionConfigError';
  readonly setting: string;
  constructor(setting: string, message: string) {
    super(`${setting}: ${message}`);
    this.setting = setting;
  }
}

type Env = Record<string, string | undefined>;

/** The environment variables envconfig reads for each TLS file (path or inline data). */
const TLS_ENV = {
  serverCa: ['TEMPORAL_TLS_SERVER_CA_CERT_PATH', 'TEMPORAL_TLS_SERVER_CA_CERT_DATA'],
  clientCert: ['TEMPORAL_TLS_CLIENT_CERT_PATH', 'TEMPORAL_TLS_CLIENT_CERT_DATA'],
  clientKey: ['TEMPORAL_TLS_CLIENT_KEY_PATH', 'TEMPORAL_TLS_CLIENT_KEY_DATA'],
} as const;

/** The profile file and name envconfig reads, as envconfig picks them (for messages and loading). */
function profileOf(flags: ConnectionFlags, env: Env) {
  return {
    name: flags.profile ?? env.TEMPORAL_PROFILE ?? 'default',
    explicit: flags.profile ?? env.TEMPORAL_PROFILE,
    file: flags.configFile ?? env.TEMPORAL_CONFIG_FILE,
  };
}

function loadProfile(
  flags: ConnectionFlags,
  env: Env,
  names: FlagNames,
  disableEnv: boolean,
): ClientConfigProfile {
  const { explicit, file } = profileOf(flags, env);
  try {
    return loadClientConfigProfile({
      profile: explicit,
      configSource: file ? { path: file } : undefined,
      disableEnv,
      overrideEnvVars: Object.fromEntries(
        Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined),
      ),
    });
  } catch (e) {
    const setting = flags.configFile
      ? (names.configFile ?? 'config file')
      : file
        ? 'TEMPORAL_CONFIG_FILE'
        : 'temporal.toml';
    const message = (e as NodeJS.ErrnoException).code
      ? `cannot read ${file} (${(e as NodeJS.ErrnoException).code})`
      : `${(e as Error).message.split('\n')[0]}${file ? ` (${file})` : ''}`;
    // Both a path and inline data for one file: name the variables when they are where both are.
    const both = /Cannot specify both (\w+)_path/.exec(message)?.[1]?.toUpperCase();
    const twice = both && env[`TEMPORAL_TLS_${both}_PATH`] !== undefined && env[`TEMPORAL_TLS_${both}_DATA`];
    throw new ConnectionConfigError(
      twice
        ? `TEMPORAL_TLS_${both}_PATH / TEMPORAL_TLS_${both}_DATA`
        : explicit && /not found/.test(message)
          ? (names.profile ?? 'TEMPORAL_PROFILE')
          : setting,
      message,
    );
  }
}

/** A PEM file's bytes, checked to be what the setting says, or an error naming the setting. */
function pemOf(source: ConfigDataSource, setting: string, kind: 'certificate' | 'key'): Uint8Array {
  let bytes: Uint8Array;
  const where = 'path' in source ? source.path : 'the inline value';
  try {
    bytes = 'path' in source ? readFileSync(source.path) : Buffer.from(source.data);
  } catch (e) {
    throw new ConnectionConfigError(
      setting,
      `cannot read ${where} (${(e as NodeJS.ErrnoException).code ?? (e as Error).name})`,
    );
  }
  try {
    if (kind === 'certificate') new X509Certificate(bytes);
    else createPrivateKey(Buffer.from(bytes));
  } catch {
    // Named, never quoted: the file may hold a private key.
    throw new ConnectionConfigError(
      setting,
      `${where} is not a PEM ${kind === 'key' ? 'private key' : 'certificate'}`,
    );
  }
  return bytes;
}

/** What one load reads from: the caller's flags, the environment, and the profile with and without it. */
interface Sources {
  flags: ConnectionFlags;
  env: Env;
  names: FlagNames;
  /** The file's profile with the environment on top. */
  merged: ClientConfigProfile;
  /** The file's profile alone: tells a profile key from a variable when naming a setting. */
  fileOnly: ClientConfigProfile;
  /** `<file> [profile.<name>] <key>`, how a message names a profile key. */
  inProfile: (key: string) => string;
}

function sourcesOf(flags: ConnectionFlags, env: Env, names: FlagNames): Sources {
  const { name: profileName, file } = profileOf(flags, env);
  return {
    flags,
    env,
    names,
    merged: loadProfile(flags, env, names, false),
    fileOnly: loadProfile(flags, env, names, true),
    inProfile: (key) => `${file ?? 'temporal.toml'} [profile.${profileName}] ${key}`,
  };
}

/** Where a setting came from: its flag, else the first variable set, else the profile key (if it has one). */
function settingOf(
  src: Sources,
  flag: keyof ConnectionFlags,
  variables: readonly string[],
  tomlKey: string,
  inFile: boolean,
): string | undefined {
  if (src.flags[flag] !== undefined) return src.names[flag] ?? flag;
  const variable = variables.find((v) => src.env[v] !== undefined);
  if (variable) return variable;
  return inFile ? src.inProfile(tomlKey) : undefined;
}

interface TlsFile {
  source?: ConfigDataSource;
  setting?: string;
}

/** One TLS file: its flag's path, else the environment's (over the profile), else the profile's own. */
function tlsFileOf(
  src: Sources,
  flag: 'tlsCaPath' | 'tlsCertPath' | 'tlsKeyPath',
  variables: readonly string[],
  tomlKey: string,
  pick: (tls: NonNullable<ClientConfigProfile['tls']>) => ConfigDataSource | undefined,
): TlsFile {
  const path = src.flags[flag];
  if (path !== undefined) return { source: { path }, setting: src.names[flag] ?? flag };
  const variable = variables.find((v) => src.env[v] !== undefined);
  if (variable) return { source: src.merged.tls && pick(src.merged.tls), setting: variable };
  const fileSource = src.fileOnly.tls && pick(src.fileOnly.tls);
  if (fileSource)
    return {
      source: fileSource,
      setting: src.inProfile(`${tomlKey}_${'path' in fileSource ? 'path' : 'data'}`),
    };
  return {};
}

/** The three TLS files; a client certificate without its key (or the reverse) is refused by name. */
function tlsFilesOf(src: Sources) {
  const files = {
    serverCa: tlsFileOf(src, 'tlsCaPath', TLS_ENV.serverCa, 'server_ca_cert', (t) => t.serverCACert),
    clientCert: tlsFileOf(src, 'tlsCertPath', TLS_ENV.clientCert, 'client_cert', (t) => t.clientCert),
    clientKey: tlsFileOf(src, 'tlsKeyPath', TLS_ENV.clientKey, 'client_key', (t) => t.clientKey),
  };
  const [cert, key] = [files.clientCert, files.clientKey];
  if (!!cert.source !== !!key.source) {
    const missing = cert.source ? key : cert;
    const present = cert.source ? cert : key;
    const missingName = cert.source
      ? (src.names.tlsKeyPath ?? 'TEMPORAL_TLS_CLIENT_KEY_PATH')
      : (src.names.tlsCertPath ?? 'TEMPORAL_TLS_CLIENT_CERT_PATH');
    throw new ConnectionConfigError(
      missing.setting ?? missingName,
      `mTLS needs a client certificate and its key: ${present.setting} is set, ${missingName} is not`,
    );
  }
  return files;
}

/**
 * TLS as the SDK takes it: false when the profile turns it off (and no flag turns it on), the files' PEM
 * when anything asks for TLS (a TLS setting, a flag, or an API key: Cloud is TLS-only), else undefined.
 * Notes in `from` which settings it came from.
 */
function tlsOf(
  src: Sources,
  apiKey: string | undefined,
  from: TemporalConnectionConfig['from'],
): TLSConfig | boolean | undefined {
  const { flags } = src;
  const tls = src.merged.tls;
  const files = tlsFilesOf(src); // a half pair is refused even where TLS ends up off
  const tlsFlags = flags.tlsCaPath ?? flags.tlsCertPath ?? flags.tlsServerName;
  if (tls?.disabled === true && !tlsFlags) return false;
  if (tls === undefined && tlsFlags === undefined && apiKey === undefined) return undefined;
  const [ca, cert, key] = [files.serverCa, files.clientCert, files.clientKey];
  from.tls = ca.setting ?? cert.setting ?? (apiKey && !tls ? from.apiKey : 'TEMPORAL_TLS');
  if (ca.setting) from.serverCa = ca.setting;
  if (cert.setting) from.clientCert = cert.setting;
  if (key.setting) from.clientKey = key.setting;
  return {
    serverNameOverride: flags.tlsServerName ?? tls?.serverName,
    serverRootCACertificate: ca.source ? pemOf(ca.source, ca.setting!, 'certificate') : undefined,
    clientCertPair:
      cert.source && key.source
        ? {
            crt: pemOf(cert.source, cert.setting!, 'certificate'),
            key: pemOf(key.source, key.setting!, 'key'),
          }
        : undefined,
  };
}

/**
 * The connection settings: flags, else the environment (TEMPORAL_*), else the profile of the config file,
 * else `fallback` (e.g. the CLI's own config file), else the local dev server's defaults.
 */
export function loadConnectionConfig(
  flags: ConnectionFlags = {},
  options: {
    env?: Env;
    names?: FlagNames;
    fallback?: { address?: string; namespace?: string; from?: string };
    /** false: address, namespace and API key only, TLS files not read (default true). */
    tls?: boolean;
  } = {},
): TemporalConnectionConfig {
  const src = sourcesOf(flags, options.env ?? process.env, options.names ?? {});
  const { merged, fileOnly, env } = src;
  const fallback = options.fallback ?? {};
  const address = flags.address ?? merged.address ?? fallback.address ?? DEFAULT_TEMPORAL_ADDRESS;
  const namespace = flags.namespace ?? merged.namespace ?? fallback.namespace ?? DEFAULT_NAMESPACE;
  const fallbackFrom = fallback.from ?? 'default';
  const from: TemporalConnectionConfig['from'] = {
    address:
      settingOf(src, 'address', ['TEMPORAL_ADDRESS'], 'address', fileOnly.address !== undefined) ??
      (fallback.address ? fallbackFrom : 'default'),
    namespace:
      settingOf(src, 'namespace', ['TEMPORAL_NAMESPACE'], 'namespace', fileOnly.namespace !== undefined) ??
      (fallback.namespace ? fallbackFrom : 'default'),
  };
  const apiKey = merged.apiKey || undefined;
  if (apiKey)
    from.apiKey = env.TEMPORAL_API_KEY !== undefined ? 'TEMPORAL_API_KEY' : src.inProfile('api_key');
  const metadata = merged.grpcMeta && Object.keys(merged.grpcMeta).length ? merged.grpcMeta : undefined;
  if (options.tls === false) return { address, namespace, apiKey, metadata, from };
  return { address, namespace, tls: tlsOf(src, apiKey, from), apiKey, metadata, from };
}

/** What `Connection.connect` and `NativeConnection.connect` take from the settings. */
export function connectOptions(config: TemporalConnectionConfig): {
  address: string;
  tls?: TLSConfig | boolean;
  apiKey?: string;
  metadata?: Record<string, string>;
} {
  return {
    address: config.address,
    ...(config.tls !== undefined ? { tls: config.tls } : {}),
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    ...(config.metadata ? { metadata: config.metadata } : {}),
  };
}

/** A one-line description of where the connection points, safe to print (no key, no certificate). */
export function describeConnection(config: TemporalConnectionConfig): string {
  const tls = !config.tls ? 'no TLS' : config.from.clientCert ? 'mTLS' : 'TLS';
  return `${config.address} (namespace ${config.namespace}, ${tls}${config.apiKey ? ', API key' : ''})`;
}

/**
 * What a TLS handshake with the server says, with the settings' CA and client certificate (the SDK's
 * own error is often only "failed to connect before the deadline"): undefined when it succeeds, else
 * Node's error code or message. `verify: false` only asks whether the server speaks TLS at all.
 */
export function probeTls(
  config: TemporalConnectionConfig,
  { verify = true, timeoutMs = 3_000 }: { verify?: boolean; timeoutMs?: number } = {},
): Promise<string | undefined> {
  const tls = typeof config.tls === 'object' ? config.tls : {};
  const [host, port] = [
    config.address.replace(/:\d+$/, '').replace(/^\[|\]$/g, ''),
    Number(/:(\d+)$/.exec(config.address)?.[1] ?? 7233),
  ];
  const text = (b?: Uint8Array) => (b ? Buffer.from(b) : undefined);
  return new Promise((resolve) => {
    const socket = tlsConnect({
      host,
      port,
      servername: tls.serverNameOverride ?? (/^[\d.]+$|:/.test(host) ? undefined : host),
      ca: text(tls.serverRootCACertificate),
      cert: text(tls.clientCertPair?.crt),
      key: text(tls.clientCertPair?.key),
      ALPNProtocols: ['h2'],
      rejectUnauthorized: verify,
    });
    const done = (result: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => done('timeout'), timeoutMs);
    // TLS 1.3: a server that wants a client certificate says so after the handshake, so wait a moment.
    socket.once('secureConnect', () => setTimeout(() => done(undefined), 300));
    socket.once('error', (e: NodeJS.ErrnoException) => done(e.code ?? e.message));
  });
}

/**
 * Why a connection failed, in words that name the setting to fix: a certificate the CA does not vouch
 * for, a client certificate the server wants, TLS spoken to a plain server or the reverse, an API key
 * refused. A TLS handshake (probeTls) tells what the SDK's error does not. The SDK's message follows
 * (first line, the API key removed).
 */
export async function explainConnectError(config: TemporalConnectionConfig, error: unknown): Promise<string> {
  let raw = String((error as Error)?.message ?? error);
  if (config.apiKey) raw = raw.split(config.apiKey).join('<api key>');
  const first = raw.split('\n').find((l) => l.trim()) ?? raw;
  const at = `Temporal at ${config.address}`;
  if (/ECONNREFUSED|connection refused|ENOTFOUND|EAI_AGAIN/i.test(raw))
    return `${at} is unreachable (${first})`;
  if (config.tls) {
    const probe = await probeTls(config);
    const ca = config.from.serverCa;
    if (
      probe &&
      /CERTIFICATE_REQUIRED|HANDSHAKE_FAILURE|BAD_CERTIFICATE|UNKNOWN_CA|ECONNRESET/.test(probe) &&
      !/ALTNAME/.test(probe)
    )
      return config.from.clientCert
        ? `${at} refused the client certificate of ${config.from.clientCert} (${probe}; ${first})`
        : `${at} wants a client certificate (mTLS): set TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH (${probe}; ${first})`;
    if (probe && /ALTNAME/.test(probe))
      return `${at}: the server's certificate does not name this host: set TEMPORAL_TLS_SERVER_NAME to a name it carries (${probe}; ${first})`;
    if (probe && /CERT|SIGNATURE|ISSUER|SELF_SIGNED/.test(probe))
      return ca
        ? `${at}: the server's certificate is not signed by the CA of ${ca} (${probe}; ${first})`
        : `${at}: the server's certificate is not trusted by this machine's CAs: set TEMPORAL_TLS_SERVER_CA_CERT_PATH to the CA that signed it (${probe}; ${first})`;
    if (probe && /EPROTO|wrong version|WRONG_VERSION|packet length/i.test(probe))
      return `${at} does not speak TLS (TLS set by ${config.from.tls}): a plain server needs TLS off (${probe}; ${first})`;
  } else if (
    /^(undefined|.*ALERT.*|.*CERTIFICATE.*)$/.test(String(await probeTls(config, { verify: false })))
  )
    // A handshake (unverified) that completes, or ends on a TLS alert (the server wants mTLS): TLS.
    return `${at} speaks TLS: set TEMPORAL_TLS_SERVER_CA_CERT_PATH (its CA) or TEMPORAL_TLS=true (${first})`;
  if (config.apiKey && /unauthenticated|unauthorized|permission denied/i.test(raw))
    return `${at} refused the API key of ${config.from.apiKey} (${first})`;
  return `${at} is unreachable (${first})`;
}
