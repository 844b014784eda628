// What the admin routes work on: the simulated world and its platform parts.
import type { SimulatorConfig } from '../config.ts';
import type { World } from '../state.ts';
import type { RateLimiter } from '../platform/rate-limiter.ts';
import type { FaultInjector } from '../platform/faults.ts';
import type { WebhookDispatcher } from '../platform/webhooks.ts';

export interface AdminDeps {
  world: World;
  config: SimulatorConfig;
  rateLimiter: RateLimiter;
  faults: FaultInjector;
  webhooks: WebhookDispatcher;
  /** Back to the start-up state (demo and seed re-applied) or, with `empty`, to an empty world. */
  reset(empty: boolean): Promise<void>;
}
