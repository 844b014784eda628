// Attack (D1, H1/M3) through the Bulk Job node's own code path, against a real Temporal server (its HTTP
// API) and a selling-kit worker that checks client keys: n8n's Temporal credential holds a client key
// scoped to shop `demo`; a workflow naming shop `second` (typed by a user, or steered by a prompt) cannot
// delete that shop's listings. And a credential still holding the worker's raw codec key is refused
// before anything is sent.
// @needs temporal
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { MarketplaceBulkJob } from '../../nodes/MarketplaceBulkJob/MarketplaceBulkJob.node.ts';
import { RAW_CODEC_KEY_REFUSED } from '../../nodes/MarketplaceBulkJob/transport/temporal.ts';
import {
  feedRowItem,
  skusOf,
  temporalHttp,
  useTwoShopStack,
  type TemporalHttpRequest,
} from '../helpers/temporal.mts';

const two = useTwoShopStack();
/** The credential's Client Key: granted shop `demo` only. */
let demoOnly: string;

beforeAll(() => {
  demoOnly = two.stack.issue('n8n-demo-only', ['demo']);
});

/** The node as n8n runs it: version 2, the given items, the Temporal credential, real HTTP. */
function execution(
  params: Record<string, unknown>,
  credential: Record<string, unknown>,
  items: INodeExecutionData[],
) {
  const calls: string[] = [];
  const fns = {
    getInputData: () => items,
    getNode: () => ({ id: 'n', name: 'Bulk', type: 'x', typeVersion: 2, position: [0, 0], parameters: {} }),
    getExecutionId: () => 'exec-attack',
    continueOnFail: () => false,
    getCredentials: async () => ({
      url: two.stack.httpUrl,
      namespace: 'default',
      taskQueue: two.stack.taskQueue,
      apiKey: '',
      ...credential,
    }),
    getNodeParameter: (name: string, _i: number, fallback?: unknown) =>
      name in params ? params[name] : fallback,
    helpers: {
      async httpRequestWithAuthentication(_type: string, req: TemporalHttpRequest) {
        calls.push(`${req.method} ${req.url}`);
        return temporalHttp(req);
      },
    },
  };
  return { fns: fns as unknown as IExecuteFunctions, calls };
}

const deleteOn = (shop: string, jobId: string) => ({
  operation: 'start',
  feedSource: 'inputItems',
  shops: [shop],
  jobOperation: 'delete',
  jobId,
  wait: true,
  maxWaitMinutes: 5,
});

describe('attack: the n8n credential is scoped to its shops', () => {
  it('a client key scoped to demo cannot start a job on second: refused, 0 listings touched', async () => {
    // second's listings, made through a job of the operator's test key (granted every shop).
    const seed = execution(
      { ...deleteOn('second', 'seed-second'), jobOperation: 'create' },
      { clientKey: two.stack.clientKey },
      ['AS-1', 'AS-2'].map(feedRowItem),
    );
    await new MarketplaceBulkJob().execute.call(seed.fns);
    expect(skusOf(two.sim, two.second, 'AS-')).toEqual(['AS-1', 'AS-2']);

    const attack = execution(
      deleteOn('second', 'attack-second'),
      { clientKey: demoOnly },
      ['AS-1', 'AS-2'].map(feedRowItem),
    );
    const outcome = await new MarketplaceBulkJob().execute.call(attack.fns).then(
      (out) => (out as { json: Record<string, unknown> }[][])[0]![0]!.json,
      (e: unknown) => ({ error: (e as Error).message }),
    );
    expect(outcome).toMatchObject({
      jobId: 'attack-second',
      state: 'failed',
      error: 'client key n8n-demo-only may not name shop second',
    });
    expect(skusOf(two.sim, two.second, 'AS-')).toEqual(['AS-1', 'AS-2']);
  });

  it('the same key on its own shop demo: the job runs', async () => {
    const run = execution(
      { ...deleteOn('demo', 'own-demo'), jobOperation: 'create' },
      { clientKey: demoOnly },
      ['AD-1'].map(feedRowItem),
    );
    const [[item]] = (await new MarketplaceBulkJob().execute.call(run.fns)) as [
      [{ json: Record<string, unknown> }],
    ];
    expect(item!.json).toMatchObject({ jobId: 'own-demo', state: 'finished', done: 1, failed: 0 });
    expect(skusOf(two.sim, 1001, 'AD-')).toEqual(['AD-1']);
  });

  it("a credential holding the worker's raw codec key: refused before any request", async () => {
    const old = execution(
      deleteOn('second', 'raw-key'),
      { codecKey: two.stack.key.toString('base64') },
      ['AS-1'].map(feedRowItem),
    );
    const error = await new MarketplaceBulkJob().execute.call(old.fns).catch((e: unknown) => e as Error);
    expect((error as Error).message).toBe(RAW_CODEC_KEY_REFUSED);
    expect(old.calls).toEqual([]);
    expect(skusOf(two.sim, two.second, 'AS-')).toEqual(['AS-1', 'AS-2']);
  });

  it("Get Report of second's job with the key scoped to demo: refused (issue 22), nothing read", async () => {
    // The node names the job's shops ([second], as the job answers): the worker's codec refuses the key.
    const read = execution({ operation: 'report', jobId: 'seed-second' }, { clientKey: demoOnly }, [
      { json: {} },
    ]);
    const error = await new MarketplaceBulkJob().execute.call(read.fns).catch((e: unknown) => e as Error);
    expect((error as Error).message).toBe(
      'The report of job seed-second could not be read: client key n8n-demo-only may not name shop second',
    );
    // The operator's key reads it.
    const own = execution({ operation: 'report', jobId: 'seed-second' }, { clientKey: two.stack.clientKey }, [
      { json: {} },
    ]);
    const [lines] = (await new MarketplaceBulkJob().execute.call(own.fns)) as [{ json: { sku: string } }[]];
    expect(lines.map((l) => l.json.sku)).toEqual(['AS-1', 'AS-2']);
  });
});
