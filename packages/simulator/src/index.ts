// Programmatic API: start a simulator on 127.0.0.1 (port 0 = any free port) for tests and the CLI.
// Two listeners: the partner-facing API (`url`) and the admin surface (`adminUrl`, its own port).
import type { AddressInfo } from 'node:net';
import { defaultConfig, type SimulatorConfig, type SimulatorConfigOverrides } from './config.ts';
import { Clock } from './platform/clock.ts';
import { buildApiServer } from './server.ts';
import { adminTokenProblem, buildAdminServer } from './admin.ts';
import { handlers as defaultHandlers } from './handlers/index.ts';
import type { Handlers } from './handlers/types.ts';
import { createWorld, resetWorld } from './world.ts';
import type { World } from './state.ts';
import { RateLimiter } from './platform/rate-limiter.ts';
import { FaultInjector } from './platform/faults.ts';
import { WebhookDispatcher } from './platform/webhooks.ts';
import { demoAssets } from './platform/assets.ts';
import { applySeed, parseSeed, readSeedFile, type SeedDocument } from './platform/seed.ts';
import { seedDemo, type DemoInfo } from './demo.ts';

export interface StartSimulatorOptions {
  /** API port; 0 (default) = any free port. */
  port?: number;
  /** Admin port; 0 (default) = any free port. */
  adminPort?: number;
  /** Interface of both listeners (default 127.0.0.1). */
  host?: string;
  config?: SimulatorConfigOverrides;
  /** Extra or replacement handlers by operation id (merged over the built-in ones). */
  handlers?: Handlers;
  /** Seed the documented demo world (see README "Demo"). */
  demo?: boolean;
  /** A seed document, or the path of a JSON file holding one. */
  seed?: SeedDocument | string;
}

export interface RunningSimulator {
  url: string;
  adminUrl: string;
  world: World;
  config: SimulatorConfig;
  rateLimiter: RateLimiter;
  faults: FaultInjector;
  webhooks: WebhookDispatcher;
  /** Set when started with `demo: true`. */
  demo?: DemoInfo;
  /** Same as POST /admin/reset. */
  reset(options?: { empty?: boolean }): Promise<void>;
  close(): Promise<void>;
}

function urlOf(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export async function startSimulator(options: StartSimulatorOptions = {}): Promise<RunningSimulator> {
  const config = defaultConfig(options.config);
  const host = options.host ?? '127.0.0.1';
  const tokenProblem = adminTokenProblem(host, config.adminToken);
  if (tokenProblem) throw new Error(tokenProblem);
  const clock = new Clock(config.timeScale);
  const world = createWorld(clock);
  const rateLimiter = new RateLimiter(config, clock);
  const faults = new FaultInjector(config.seed, clock);
  const webhooks = new WebhookDispatcher(world, config);
  const seedDoc =
    typeof options.seed === 'string'
      ? await readSeedFile(options.seed)
      : options.seed
        ? parseSeed(options.seed)
        : undefined;

  const api = buildApiServer({
    world,
    config,
    handlers: { ...defaultHandlers, ...options.handlers },
    events: webhooks,
    rateLimiter,
    faults,
    assets: demoAssets(),
  });
  let demo: DemoInfo | undefined;
  let url = '';
  const populate = async () => {
    if (options.demo) demo = await seedDemo(world, config, url);
    if (seedDoc) await applySeed(world, config, seedDoc);
  };
  const reset = async ({ empty = false }: { empty?: boolean } = {}) => {
    webhooks.reset();
    rateLimiter.reset();
    faults.reset(config.seed);
    resetWorld(world);
    if (!empty) await populate();
  };
  const admin = buildAdminServer({
    world,
    config,
    rateLimiter,
    faults,
    webhooks,
    reset: (empty) => reset({ empty }),
  });

  try {
    await api.listen({ port: options.port ?? 0, host });
    url = urlOf(host, (api.server.address() as AddressInfo).port);
    await populate();
    await admin.listen({ port: options.adminPort ?? 0, host });
  } catch (e) {
    webhooks.close();
    await Promise.allSettled([api.close(), admin.close()]);
    throw e;
  }
  const adminUrl = urlOf(host, (admin.server.address() as AddressInfo).port);

  return {
    url,
    adminUrl,
    world,
    config,
    rateLimiter,
    faults,
    webhooks,
    get demo() {
      return demo;
    },
    reset,
    close: async () => {
      webhooks.close();
      await Promise.all([api.close(), admin.close()]);
    },
  };
}

export { defaultConfig, type SimulatorConfig, type SimulatorConfigOverrides } from './config.ts';
export * from './world.ts';
export type * from './state.ts';
export type { Handlers, Handler, HandlerContext, HandlerResult } from './handlers/types.ts';
export type { EventSink } from './platform/events.ts';
export { DEMO, type DemoInfo } from './demo.ts';
export { freePort } from './free-port.ts';
export type { SeedDocument } from './platform/seed.ts';
export type { FaultRuleInput, FaultType } from './platform/faults.ts';
export { signWebhook } from './platform/webhooks.ts';
export { pkceChallenge, AUTHORIZE_PATH } from './handlers/auth.ts';
