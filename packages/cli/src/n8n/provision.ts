// What the dev n8n holds once `selling-kit dev` has set it up: credentials for both demo shops, the
// demo partner's webhook secret and the local Temporal (updated on every run: the simulator may listen
// elsewhere), the example workflows of packages/n8n-nodes/examples imported once (a user's edits are
// kept) with their credentials pointed at those, every one active, and each Marketplace Trigger's
// Production URL subscribed to the simulator's webhooks (the simulator forgets them between runs).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from '@selling-kit/api-client';
import { NODES_PACKAGE_DIR } from './install.ts';
import type { N8nApi, N8nWorkflow } from './api.ts';

export const NODES_PACKAGE = 'n8n-nodes-marketplace';
export const TRIGGER_TYPE = `@selling-kit/${NODES_PACKAGE}.marketplaceTrigger`;
export const EXAMPLES_DIR = join(NODES_PACKAGE_DIR, 'examples');
/** How long the offers example waits after a like in the dev n8n (1 h in the example itself). */
export const DEMO_OFFER_WAIT_SEC = 5;

export interface DemoShop {
  baseUrl: string;
  apiKey: string;
}

export interface ProvisionInput {
  shop: DemoShop;
  usShop: DemoShop;
  webhookSecret: string;
  /** `clientKey`: a client credential (`selling-kit keys issue`), empty when the worker does not encrypt. */
  temporal: { url: string; namespace: string; taskQueue: string; clientKey: string };
}

interface CredentialRef {
  id: string;
  name: string;
}

type Credentials = Record<'shop' | 'usShop' | 'webhook' | 'temporal', CredentialRef>;

/** Creates or updates (by name and type) the four credentials the examples use. */
async function upsertCredentials(api: N8nApi, input: ProvisionInput): Promise<Credentials> {
  const existing = await api.list<{ id: string; name: string; type: string }>('/credentials');
  const upsert = async (
    name: string,
    type: string,
    data: Record<string, unknown>,
  ): Promise<CredentialRef> => {
    const found = existing.find((c) => c.name === name && c.type === type);
    if (found) {
      await api.api('PATCH', `/credentials/${found.id}`, { name, type, data });
      return { id: found.id, name };
    }
    const created = await api.api<{ id: string }>('POST', '/credentials', { name, type, data });
    return { id: created.id, name };
  };
  // Both demo shops belong to the demo partner: its signing secret verifies the triggers (version 3).
  const shopData = (s: DemoShop) => ({
    environment: 'simulator',
    baseUrl: s.baseUrl,
    apiKey: s.apiKey,
    webhookSigningSecret: input.webhookSecret,
  });
  return {
    shop: await upsert('Demo shop (simulator)', 'marketplaceApi', shopData(input.shop)),
    usShop: await upsert('Demo shop US (simulator)', 'marketplaceApi', shopData(input.usShop)),
    webhook: await upsert('Demo webhook secret (simulator)', 'marketplaceWebhookApi', {
      signingSecret: input.webhookSecret,
    }),
    temporal: await upsert('Local Temporal (selling-kit dev)', 'marketplaceTemporalApi', {
      ...input.temporal,
      apiKey: '',
    }),
  };
}
interface ExampleNode {
  name: string;
  type: string;
  parameters: Record<string, unknown>;
  webhookId?: string;
  credentials?: Record<string, CredentialRef>;
}

interface ExampleWorkflow {
  name: string;
  nodes: ExampleNode[];
  connections: Record<string, unknown>;
  settings?: Record<string, unknown>;
}

export function readExamples(dir = EXAMPLES_DIR): ExampleWorkflow[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as ExampleWorkflow);
}

/**
 * An example as this dev n8n imports it: each credential reference pointed at the dev credential of
 * its type ("Shop B" in the two-shop examples is the US demo shop), and waits of an hour or more
 * shortened so the demo's like visibly ends in an offer while the stack runs.
 */
export function adaptExample(example: ExampleWorkflow, credentials: Credentials): ExampleWorkflow {
  const forType = (type: string, ref: CredentialRef): CredentialRef => {
    if (type === 'marketplaceWebhookApi') return credentials.webhook;
    if (type === 'marketplaceTemporalApi') return credentials.temporal;
    return /\bB\b|\bUS\b/.test(ref.name) ? credentials.usShop : credentials.shop;
  };
  let shortened = false;
  const nodes = example.nodes.map((node) => {
    const adapted: ExampleNode = { ...node };
    if (node.credentials)
      adapted.credentials = Object.fromEntries(
        Object.entries(node.credentials).map(([type, ref]) => [type, forType(type, ref)]),
      );
    if (node.type === 'n8n-nodes-base.wait' && node.parameters.unit !== 'seconds') {
      adapted.parameters = { ...node.parameters, amount: DEMO_OFFER_WAIT_SEC, unit: 'seconds' };
      shortened = true;
    }
    // The simulator forgets subscriptions between runs and n8n may re-activate before it listens:
    // dev subscribes the trigger URLs itself (registerTriggers), so the triggers need not.
    if (node.type === TRIGGER_TYPE && 'webhookRegistration' in node.parameters)
      adapted.parameters = { ...node.parameters, webhookRegistration: 'outOfBand' };
    return adapted;
  });
  // The notes say what the nodes do: a shortened wait is said there too.
  if (shortened)
    for (const node of nodes.filter((n) => n.type === 'n8n-nodes-base.stickyNote'))
      node.parameters = {
        ...node.parameters,
        content: String(node.parameters.content ?? '').replace(
          /\ban hour\b/g,
          `${DEMO_OFFER_WAIT_SEC} seconds (an hour in the shipped example)`,
        ),
      };
  return {
    name: example.name,
    nodes,
    connections: example.connections,
    settings: { ...example.settings, saveDataSuccessExecution: 'all', saveDataErrorExecution: 'all' },
  };
}

export interface ProvisionedWorkflow {
  id: string;
  name: string;
  /** Production URLs of its Marketplace Triggers, with their events. */
  triggers: { url: string; events: string[] }[];
}

export function triggersOf(
  workflow: Pick<N8nWorkflow, 'nodes'>,
  n8nUrl: string,
): ProvisionedWorkflow['triggers'] {
  return workflow.nodes
    .filter((n) => n.type === TRIGGER_TYPE && n.webhookId)
    .map((n) => ({
      url: `${n8nUrl}/webhook/${n.webhookId}/webhook`,
      events: ((n.parameters.events as string[] | undefined) ?? []).filter((e) => e !== '*'),
    }));
}

/** Credentials, examples (imported when absent by name) and activation; returns the examples' workflows. */
export async function provisionN8n(
  api: N8nApi,
  input: ProvisionInput,
): Promise<{ workflows: ProvisionedWorkflow[]; imported: string[] }> {
  const credentials = await upsertCredentials(api, input);
  const present = await api.workflows();
  const workflows: ProvisionedWorkflow[] = [];
  const imported: string[] = [];
  for (const example of readExamples()) {
    let workflow = present.find((w) => w.name === example.name);
    if (!workflow) {
      workflow = await api.api<N8nWorkflow>('POST', '/workflows', adaptExample(example, credentials));
      imported.push(example.name);
    }
    if (!workflow.active) await api.api('POST', `/workflows/${workflow.id}/activate`);
    workflows.push({ id: workflow.id, name: workflow.name, triggers: triggersOf(workflow, api.url) });
  }
  return { workflows, imported };
}

/**
 * Subscribes each trigger URL through the Selling API's webhook configuration endpoint, unless a
 * subscription of that URL exists (the trigger may register itself on activation).
 */
export async function registerTriggers(shop: DemoShop, workflows: ProvisionedWorkflow[]): Promise<number> {
  const client = createClient({ baseUrl: shop.baseUrl, apiKey: shop.apiKey, retry: { maxRetries: 2 } });
  const subscribed = new Set((await client.webhooks.list()).map((w) => w.url));
  let created = 0;
  for (const trigger of workflows.flatMap((w) => w.triggers)) {
    if (subscribed.has(trigger.url)) continue;
    await client.webhooks.create({
      url: trigger.url,
      ...(trigger.events.length
        ? {
            event_types: trigger.events as NonNullable<
              Parameters<typeof client.webhooks.create>[0]['event_types']
            >,
          }
        : {}),
    });
    subscribed.add(trigger.url);
    created++;
  }
  return created;
}
