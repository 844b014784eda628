// The n8n half of the `selling-kit dev` demo: once the example workflows listen, a sale on shop "demo"
// (the simulator's purchase, as a buyer would make it) and a like of another demo listing; then it waits
// for the workflows' executions those events start and reports them.
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
  await admin(sim, 'POST', '/admin/orders', { sellerId: sim.sellerId, productIds: [sold] });
  const like = await admin<{ likerId: number }>(sim, 'POST', `/admin/products/${liked}/likes`, {});
  const described = {
    sale: `a sale of listing ${sold} on "demo"`,
    like: `liker ${like.likerId} liked listing ${liked} on "demo"`,
  };
  const pending = workflows.flatMap((w) => {
    const event = eventFor(w);
    return event ? [{ id: w.id, run: { workflow: w.name, event: described[event] } as DemoRun }] : [];
  });
  const deadline = Date.now() + timeoutMs;
  for (const { id, run } of pending) {
    while (Date.now() < deadline) {
      const ended = (await api.executions(id)).filter(
        (e) => Date.parse(e.startedAt) >= since && !['new', 'running', 'waiting'].includes(e.status),
      );
      if (ended.length) {
        run.execution = ended.find((e) => e.status === 'success') ?? ended[0];
        break;
      }
      await sleep(1_000);
    }
  }
  return pending.map((p) => p.run);
}
