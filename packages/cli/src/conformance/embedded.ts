// The default target: the simulator started in this process on 127.0.0.1 (any free port) with its demo
// world — the demo shop's API key and webhook secret, and a picture it serves itself. A read-after-create
// delay is switched on so the read probe meets the spec's "short delay" for real.
import { startSimulator, type RunningSimulator } from '@selling-kit/simulator';

export interface EmbeddedTarget {
  baseUrl: string;
  apiKey: string;
  webhookSecret: string;
  pictureUrl: string;
  close(): Promise<void>;
}

/** Simulated ms a new listing stays unreadable (the probes re-read; see READ_AFTER_CREATE_DELAYS_MS). */
const EMBEDDED_READ_AFTER_CREATE_DELAY_MS = 200;

export async function startEmbeddedSimulator(): Promise<EmbeddedTarget> {
  const sim: RunningSimulator = await startSimulator({
    demo: true,
    config: { readAfterCreateDelayMs: EMBEDDED_READ_AFTER_CREATE_DELAY_MS },
  });
  const demo = sim.demo!;
  // A demo listing's picture: a live URL the simulator serves (and downloads, as the spec asks).
  const pictureUrl = [...(sim.world.sellers.get(demo.sellerId)?.products.values() ?? [])][0]?.pictures[0]
    ?.url;
  if (!pictureUrl) {
    await sim.close();
    throw new Error(
      `the embedded simulator has no demo picture (${demo.warnings.join('; ') || 'no demo listing'})`,
    );
  }
  return {
    baseUrl: sim.url,
    apiKey: demo.apiKey,
    webhookSecret: demo.webhookSecret,
    pictureUrl,
    close: () => sim.close(),
  };
}
