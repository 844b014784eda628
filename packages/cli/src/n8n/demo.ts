// The n8n half of the `selling-kit dev` demo: once the example workflows listen, a sale on shop "demo"
// (the simulator's purchase, as a buyer would make it) and a like of another demo listing; then it waits
// for the workflows' executions those events start and reports them, with what each changed on the
// simulator (an offer sent, a listing marked sold): a run that changed nothing is not a success.
import type { N8nApi, N8nExecution } from './api.ts';
import type { ProvisionedWorkflow } from './provision.ts';

export interface DemoSimulator {
  adminUrl: string;
  sellerId: number;
  /** Product ids of the demo listings on shop "demo". */
  listings: number[];
}

export interface DemoRun {
  workflow: string;
  event: string;
  execution?: N8nExecution;
  /** What the run changed on the simulator ("offer sent …"), or undefined when it changed nothing. */
  effect?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function admin<T>(sim: DemoSimulator, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(sim.adminUrl + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`simulator admin ${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text) as T;
}

/**
 * Waits until n8n serves each trigger URL (activation registers webhooks asynchronously): a GET then
 * answers that the URL takes POST requests.
 */
export async function waitForTriggers(workflows: ProvisionedWorkflow[], timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const { url } of workflows.flatMap((w) => w.triggers)) {
    for (;;) {
      const text = await fetch(url)
        .then((r) => r.text())
        .catch(() => '');
      if (/POST request/.test(text)) break;
      if (Date.now() > deadline) throw new Error(`n8n does not serve the trigger URL ${url}`);
      await sleep(250);
    }
  }
}

/** Which demo event starts a workflow, from the events its trigger listens to. */
function eventFor(workflow: ProvisionedWorkflow): 'sale' | 'like' | undefined {
  const events = workflow.triggers.flatMap((t) => t.events);
  if (events.includes('v1:order.new')) return 'sale';
  if (events.includes('v1:product.like')) return 'like';
  return undefined;
}

interface SimProduct {
  productId: number;
  sku: string | null;
  state: string;
}

/**
 * What the run did on the simulator, read there (a green execution may have sent nothing): for the
 * sale, the sold SKU marked sold on another shop; for the like, an offer to the liker on the listing.
 */
export async function effectOf(
  sim: DemoSimulator,
  event: 'sale' | 'like',
  listing: number,
  likerId: number,
): Promise<string | undefined> {
  if (event === 'like') {
    const offers = await admin<{ productId: number; recipientId: number; value: number; currency: string }[]>(
      sim,
      'GET',
      `/admin/sellers/${sim.sellerId}/offers`,
    );
    const offer = offers.find((o) => o.productId === listing && o.recipientId === likerId);
    return offer ? `offer of ${offer.value} ${offer.currency} sent to liker ${likerId}` : undefined;
  }
  const { sku } = await admin<SimProduct>(sim, 'GET', `/admin/products/${listing}`);
  if (!sku) return undefined;
  const sellers = await admin<{ id: number; username: string }[]>(sim, 'GET', '/admin/sellers');
  for (const other of sellers.filter((s) => s.id !== sim.sellerId)) {
    const products = await admin<SimProduct[]>(sim, 'GET', `/admin/sellers/${other.id}/products`);
    if (products.some((p) => p.sku === sku && p.state === 'sold'))
      return `${sku} marked sold on "${other.username}"`;
  }
  return undefined;
}

/**
 * Makes the sale and the like, then waits (up to `timeoutMs`) for an execution of each workflow that
 * began after them to end. Runs without an ended execution are reported as such, not thrown.
 */
export async function runN8nDemo(
  api: N8nApi,
  sim: DemoSimulator,
  workflows: ProvisionedWorkflow[],
  timeoutMs = 90_000,
): Promise<DemoRun[]> {
  const [, sold, liked] = sim.listings;
  if (sold === undefined || liked === undefined) throw new Error('the demo shop has fewer than 3 listings');
  const since = Date.now() - 1_000;
  // Every unit left, so the listing is sold out and the delist example has something to delist.
  const { quantity } = await admin<{ quantity: number }>(sim, 'GET', `/admin/products/${sold}`);
  const productIds = Array.from({ length: Math.max(1, quantity) }, () => sold);
  await admin(sim, 'POST', '/admin/orders', { sellerId: sim.sellerId, productIds });
  const like = await admin<{ likerId: number }>(sim, 'POST', `/admin/products/${liked}/likes`, {});
  const described = {
    sale: `a sale of listing ${sold} on "demo"`,
    like: `liker ${like.likerId} liked listing ${liked} on "demo"`,
  };
  const pending = workflows.flatMap((w) => {
    const event = eventFor(w);
    return event
      ? [{ id: w.id, kind: event, run: { workflow: w.name, event: described[event] } as DemoRun }]
      : [];
  });
  const deadline = Date.now() + timeoutMs;
  for (const { id, kind, run } of pending) {
    while (Date.now() < deadline) {
      const ended = (await api.executions(id)).filter(
        (e) => Date.parse(e.startedAt) >= since && !['new', 'running', 'waiting'].includes(e.status),
      );
      if (ended.length) {
        run.execution = ended.find((e) => e.status === 'success') ?? ended[0];
        run.effect = await effectOf(sim, kind, kind === 'sale' ? sold : liked, like.likerId);
        break;
      }
      await sleep(1_000);
    }
  }
  return pending.map((p) => p.run);
}
