// The Marketplace Bulk Job node against a real Temporal dev server (its HTTP API) and a real selling-kit
// worker with the payload codec, listing into a simulator: start and wait, progress, sealed history,
// and clear errors.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IExecuteFunctions } from 'n8n-workflow';
import { startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { MarketplaceBulkJob } from '../nodes/MarketplaceBulkJob/MarketplaceBulkJob.node.ts';
import {
  FEED_HEADER as header,
  feedRow as row,
  startTemporalStack,
  type TemporalStack,
} from './helpers/temporal.mts';

let stack: TemporalStack;
let sim: RunningSimulator;
let httpUrl: string;
let taskQueue: string;
let key: Buffer;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({ demo: true, config: { fetchPictures: false } });
  stack = await startTemporalStack({ demo: { baseUrl: sim.url, apiKey: 'pak_demo_selling_kit' } });
  ({ httpUrl, taskQueue, key, dir } = stack);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await sim?.close();
}, 60_000);

function mock(params: Record<string, unknown>, credentials: Record<string, unknown> = {}) {
  const calls: { method: string; url: string; body?: unknown }[] = [];
  const fns = {
    getInputData: () => [{ json: {} }],
    getNode: () => ({ id: 'n', name: 'Bulk', type: 'x', typeVersion: 1, position: [0, 0], parameters: {} }),
    getExecutionId: () => 'exec-1',
    continueOnFail: () => false,
    getCredentials: async () => ({
      url: httpUrl,
      namespace: 'default',
      taskQueue,
      codecKey: key.toString('base64'),
      reportDir: join(dir, 'reports'),
      apiKey: '',
      ...credentials,
    }),
    getNodeParameter: (name: string, _i: number, fallback?: unknown) =>
      name in params ? params[name] : fallback,
    helpers: {
      async httpRequestWithAuthentication(
        _type: string,
        req: { method: string; url: string; body?: unknown },
      ) {
        calls.push(req);
        const res = await fetch(req.url, {
          method: req.method,
          headers: { 'content-type': 'application/json' },
          body: req.body === undefined ? undefined : JSON.stringify(req.body),
        });
        const text = await res.text();
        return { statusCode: res.status, body: text ? JSON.parse(text) : {} };
      },
    },
  };
  return { fns: fns as unknown as IExecuteFunctions, calls };
}

const node = new MarketplaceBulkJob();
describe('Marketplace Bulk Job node', () => {
  it('starts a job through the HTTP API, waits, and returns the final counts; history holds no plaintext', async () => {
    const feed = join(dir, 'feed.csv');
    writeFileSync(feed, [header, row('BJ-1'), row('BJ-2'), row('BJ-3'), 'BJ-4,,oops'].join('\n') + '\n');
    const { fns, calls } = mock({
      operation: 'start',
      feed,
      format: 'csv',
      shops: 'demo',
      jobOperation: 'create',
      jobId: 'bj-1',
      wait: true,
      maxWaitMinutes: 5,
    });
    const [[item]] = (await node.execute.call(fns)) as [[{ json: Record<string, unknown> }]];
    expect(item!.json).toMatchObject({ jobId: 'bj-1', state: 'finished', total: 4, done: 3, failed: 1 });
    const seller = sim.world.sellers.get(1001)!;
    expect(['BJ-1', 'BJ-2', 'BJ-3'].every((s) => seller.skus.has(s))).toBe(true);
    expect(calls[0]).toMatchObject({
      method: 'POST',
      url: expect.stringContaining('/workflows/bulk%3Abj-1'),
    });
    // The history (as the server stores it) has neither the feed path nor the shop in plaintext.
    const history = await (
      await fetch(`${httpUrl}/api/v1/namespaces/default/workflows/bulk%3Abj-1/history`)
    ).text();
    expect(history).toContain('YmluYXJ5L2VuY3J5cHRlZA=='); // "binary/encrypted"
    expect(history).not.toContain('feed.csv');
  });

  it('starts without waiting, then reports progress by job id', async () => {
    const feed = join(dir, 'feed2.csv');
    writeFileSync(feed, [header, row('BJ-10'), row('BJ-11')].join('\n') + '\n');
    const start = mock({
      operation: 'start',
      feed,
      format: 'csv',
      shops: 'demo',
      jobOperation: 'create',
      jobId: 'bj-2',
      wait: false,
    });
    const [[started]] = (await node.execute.call(start.fns)) as [[{ json: Record<string, unknown> }]];
    expect(started!.json).toEqual({ jobId: 'bj-2', state: 'started', shops: ['demo'], operation: 'create' });
    let progress: Record<string, unknown> = {};
    for (let i = 0; i < 60 && progress.state !== 'finished'; i++) {
      await new Promise((r) => setTimeout(r, 500));
      const [[p]] = (await node.execute.call(mock({ operation: 'progress', jobId: 'bj-2' }).fns)) as [
        [{ json: Record<string, unknown> }],
      ];
      progress = p!.json;
    }
    expect(progress).toMatchObject({ jobId: 'bj-2', state: 'finished', done: 2, failed: 0 });
  });

  it('errors: a taken job id (NodeApiError), a wrong codec key, an unknown job', async () => {
    const feed = join(dir, 'feed.csv');
    const again = mock({
      operation: 'start',
      feed,
      format: 'csv',
      shops: 'demo',
      jobOperation: 'create',
      jobId: 'bj-1',
      wait: false,
    });
    const taken = await node.execute.call(again.fns).catch((e: unknown) => e);
    expect((taken as Error).constructor.name).toBe('NodeApiError');
    expect((taken as Error).message).toMatch(/refused to start job bj-1/);
    const badKey = await node.execute
      .call(mock({ operation: 'progress', jobId: 'bj-1' }, { codecKey: 'c2hvcnQ=' }).fns)
      .catch((e: unknown) => e);
    expect((badKey as Error).message).toMatch(/Codec Key: must be the base64 of 32 bytes/);
    const unknown = await node.execute
      .call(mock({ operation: 'progress', jobId: 'no-such-job' }).fns)
      .catch((e: unknown) => e);
    expect((unknown as Error).constructor.name).toBe('NodeApiError');
    expect((unknown as Error).message).toMatch(/No progress for job no-such-job/);
  });
});
