// A Temporal client with the same data converter as the worker (payload codec, failure messages through
// it), or a clear "unreachable" / "no codec key" error. Where it connects — address, namespace, TLS, API
// key — is Temporal's own configuration with the flags on top (config.ts, connection-config.ts); a failed
// TLS handshake names the setting to fix.
import { Client, Connection } from '@temporalio/client';
import {
  connectOptions,
  dataConverter,
  explainConnectError,
  tracingFromEnv,
} from '@selling-kit/temporal-workflows';
import type { CliConfig } from './config.ts';
import { CliError, EXIT } from './errors.ts';
import { cliCodec } from './stores.ts';

export interface TemporalSession {
  client: Client;
  close(): Promise<void>;
}

export async function connectTemporal(config: CliConfig): Promise<TemporalSession> {
  // The key first: without it nothing this client starts could be read by the worker.
  // SELLING_KIT_CLIENT_KEY: as that client; else as the operator (the master ring), stores.ts cliCodec.
  const codec = config.codec ? cliCodec(config) : undefined;
  const temporal = config.temporal();
  let connection: Connection;
  try {
    connection = await Connection.connect({ ...connectOptions(temporal), connectTimeout: '4s' });
  } catch (e) {
    throw new CliError(
      'temporal_unreachable',
      await explainConnectError(temporal, e),
      EXIT.temporalUnreachable,
      temporal.tls
        ? 'check the TLS settings named above (TEMPORAL_TLS_*, the temporal.toml profile)'
        : 'start the embedded stack with `selling-kit dev`, or point TEMPORAL_ADDRESS / --temporal at your server',
    );
  }
  // SELLING_KIT_TRACING=otlp: the job's trace starts here (tracing.ts).
  const tracing = tracingFromEnv('selling-kit-cli');
  const client = new Client({
    connection,
    namespace: temporal.namespace,
    dataConverter: dataConverter(codec),
    interceptors: tracing ? { workflow: tracing.clientInterceptors() } : undefined,
  });
  return {
    client,
    close: async () => {
      await connection.close();
      await tracing?.flush();
    },
  };
}

/** Runs `fn` with a connected client and always closes the connection. */
export async function withTemporal<T>(config: CliConfig, fn: (client: Client) => Promise<T>): Promise<T> {
  const session = await connectTemporal(config);
  try {
    return await fn(session.client);
  } finally {
    await session.close();
  }
}
