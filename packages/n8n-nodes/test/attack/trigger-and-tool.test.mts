// Attacks (L7, L8) on the n8n side. A Replay Window of 0 (or a few seconds) turns replay protection off
// (or nearly): a captured delivery could be replayed for ever, so the trigger refuses to listen below 30
// seconds and refuses deliveries while so configured. The Bulk Job node is an AI-agent tool only behind
// its one credential, a scoped client key: a steered agent reaches only the shops that key was given.
import type { IDataObject, IHookFunctions, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { webhookHeaders } from '@selling-kit/api-client/core';
import { MarketplaceTrigger } from '../../nodes/MarketplaceTrigger/MarketplaceTrigger.node.ts';
import { MIN_REPLAY_WINDOW_SEC } from '../../nodes/MarketplaceTrigger/helpers.ts';
import { MarketplaceBulkJob } from '../../nodes/MarketplaceBulkJob/MarketplaceBulkJob.node.ts';

const SECRET = 'whsec_attack_secret_0123456789';
const REFUSAL = `Replay Window must be at least ${MIN_REPLAY_WINDOW_SEC} seconds (below it replay protection is off or nearly)`;

const node = { name: 'Marketplace Trigger', type: 'marketplaceTrigger', typeVersion: 1 };

function hookCtx(options: IDataObject): IHookFunctions {
  const params: Record<string, unknown> = { events: ['*'], options };
  return {
    getNode: () => node,
    getNodeParameter: (name: string, fallback?: unknown) => (name in params ? params[name] : fallback),
    getWebhookName: () => 'default',
    getNodeWebhookUrl: () => 'http://127.0.0.1:1/webhook/x',
    getWorkflowStaticData: () => ({}),
  } as unknown as IHookFunctions;
}

async function deliver(options: IDataObject, ageSec: number) {
  const body = `{"id":"evt_1","event_type":"v1:order.new","created_at":"2026-11-23T07:00:00.000Z","data":{}}`;
  const headers = Object.fromEntries(
    Object.entries(webhookHeaders(body, SECRET, Math.floor(Date.now() / 1000) - ageSec)).map(([k, v]) => [
      k.toLowerCase(),
      v,
    ]),
  );
  const res = { statusCode: undefined as number | undefined };
  const response = {
    status: (c: number) => ((res.statusCode = c), response),
    json: () => response,
    end: () => response,
  };
  const ctx = {
    getNode: () => node,
    getRequestObject: () => ({ rawBody: Buffer.from(body), headers, body: {} }),
    getResponseObject: () => response,
    getCredentials: async () => ({ signingSecret: SECRET }),
    getNodeParameter: (name: string, fallback?: unknown) =>
      (({ events: ['*'], options }) as Record<string, unknown>)[name] ?? fallback,
    helpers: { returnJsonArray: (items: IDataObject[]) => items.map((json) => ({ json })) },
  } as unknown as IWebhookFunctions;
  return new MarketplaceTrigger().webhook.call(ctx) as Promise<IWebhookResponseData>;
}

describe('attack: replaying a captured delivery through a trigger with replay protection turned off', () => {
  it.each([0, 1, 29])('Replay Window %i: the trigger refuses to listen, naming the minimum', async (sec) => {
    const hooks = new MarketplaceTrigger().webhookMethods.default;
    // Out of band (v1): nothing remote would be created anyway; the refusal is local.
    await expect(hooks.checkExists.call(hookCtx({ replayWindowSec: sec }))).rejects.toThrow(REFUSAL);
    await expect(hooks.create.call(hookCtx({ replayWindowSec: sec }))).rejects.toThrow(REFUSAL);
  });

  it('Replay Window 0: an hour-old (replayed) delivery starts no workflow', async () => {
    await expect(deliver({ replayWindowSec: 0 }, 3600)).rejects.toThrow(REFUSAL);
  });

  it('at the minimum the window holds', async () => {
    const fresh = await deliver({ replayWindowSec: MIN_REPLAY_WINDOW_SEC }, 1);
    expect(fresh.workflowData).toHaveLength(1);
    const replayed = await deliver({ replayWindowSec: MIN_REPLAY_WINDOW_SEC }, 3600);
    expect(replayed.workflowData).toBeUndefined();
    expect(replayed).toEqual({ noWebhookResponse: true });
  });

  it('the option itself cannot go below the minimum in the editor', () => {
    const options = new MarketplaceTrigger().description.properties.find((p) => p.name === 'options')!;
    const replay = (options.options as { name: string; typeOptions?: IDataObject }[]).find(
      (o) => o.name === 'replayWindowSec',
    )!;
    expect(replay.typeOptions?.minValue).toBe(MIN_REPLAY_WINDOW_SEC);
  });
});

describe('attack: an AI agent driving the Bulk Job node as a tool', () => {
  it('the Bulk Job node is a tool only behind a scoped client key (its one credential)', () => {
    // What bounds a steered agent is the credential's scope, enforced by the worker
    // (attack/auth-scope.test.mts: a key scoped to demo cannot start a job on second).
    const { description } = new MarketplaceBulkJob();
    expect(description.usableAsTool).toBe(true);
    expect(description.credentials).toEqual([{ name: 'marketplaceTemporalApi', required: true }]);
  });
});

describe('attack: a Custom URL in cleartext to a remote host (L1)', () => {
  it('is refused before any request carries the credential; loopback and https pass', async () => {
    const { resolveBaseUrl } = await import('../../credentials/environments.ts');
    expect(() => resolveBaseUrl({ environment: 'custom', baseUrl: 'http://api.example.com' })).toThrow(
      'base URL http://api.example.com must use https: (plain http only to a loopback host',
    );
    expect(() => resolveBaseUrl({ environment: 'simulator', baseUrl: 'http://10.0.0.8:4010' })).toThrow(
      'must use https:',
    );
    expect(resolveBaseUrl({ environment: 'custom', baseUrl: 'https://api.example.com/' })).toBe(
      'https://api.example.com',
    );
    expect(resolveBaseUrl({ environment: 'simulator', baseUrl: 'http://127.0.0.1:5010' })).toBe(
      'http://127.0.0.1:5010',
    );
  });
});
