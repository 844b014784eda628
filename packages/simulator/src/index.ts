// Programmatic API: start a simulator on 127.0.0.1 (port 0 = any free port) for tests and the CLI.
import type { AddressInfo } from 'node:net';
import { defaultConfig, type SimulatorConfig } from './config.ts';
import { Clock } from './platform/clock.ts';
import { buildApiServer } from './server.ts';
import { handlers } from './handlers/index.ts';
import { createWorld } from './world.ts';
import type { World } from './state.ts';

export interface StartSimulatorOptions {
  port?: number;
  host?: string;
  config?: Partial<SimulatorConfig>;
}

export interface RunningSimulator {
  url: string;
  adminUrl: string;
  world: World;
  config: SimulatorConfig;
  close(): Promise<void>;
}

export async function startSimulator(options: StartSimulatorOptions = {}): Promise<RunningSimulator> {
  const config = defaultConfig(options.config);
  const world = createWorld(new Clock(config.timeScale));
  const app = buildApiServer({ world, config, handlers, events: { emit: () => {} } });
  await app.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const url = `http://${options.host ?? '127.0.0.1'}:${port}`;
  return { url, adminUrl: '', world, config, close: () => app.close() };
}

export { defaultConfig, type SimulatorConfig } from './config.ts';
export * from './world.ts';
export type * from './state.ts';
