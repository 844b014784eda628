// Attack (issue 22 §2, review M2): a Job ID that climbs out of the job store (`../x`) or otherwise breaks
// the job contract's id rule (contract.ts ID_PATTERN), typed in the Bulk Job node. The node refuses it
// with the rule before any request: nothing reaches Temporal (the worker would refuse it too:
// temporal-workflows test/attack/feeds.test.ts).
import type { IExecuteFunctions } from 'n8n-workflow';
import { MarketplaceBulkJob } from '../../nodes/MarketplaceBulkJob/MarketplaceBulkJob.node.ts';

const RULE =
  'is not a valid id: letters, digits, ".", "_" and "-", 1 to 128 characters, starting with a letter or digit';

function mock(params: Record<string, unknown>) {
  const calls: string[] = [];
  const fns = {
    getInputData: () => [{ json: {} }],
    getNode: () => ({ id: 'n', name: 'Bulk', type: 'x', typeVersion: 2, position: [0, 0], parameters: {} }),
    getExecutionId: () => 'exec-1',
    continueOnFail: () => false,
    getCredentials: async () => ({
      url: 'http://127.0.0.1:1',
      namespace: 'default',
      taskQueue: 'selling-kit',
      clientKey: '',
    }),
    getNodeParameter: (name: string, _i: number, fallback?: unknown) =>
      name in params ? params[name] : fallback,
    helpers: {
      async httpRequestWithAuthentication(_type: string, req: { method: string; url: string }) {
        calls.push(`${req.method} ${req.url}`);
        throw new Error('no request may leave for a refused Job ID');
      },
    },
  };
  return { fns: fns as unknown as IExecuteFunctions, calls };
}

const node = new MarketplaceBulkJob();

describe('attack: a Job ID outside the id rule', () => {
  it.each(['../x', 'a/b', '.hidden', 'x'.repeat(129)])(
    'Start Job with Job ID %p: refused, nothing sent',
    async (jobId) => {
      const { fns, calls } = mock({
        operation: 'start',
        feedSource: 'inputItems',
        format: 'ndjson',
        shops: ['demo'],
        jobOperation: 'create',
        jobId,
        wait: false,
      });
      await expect(node.execute.call(fns)).rejects.toThrow(
        `Job ID ${JSON.stringify(jobId.length > 60 ? `${jobId.slice(0, 60)}…` : jobId)} ${RULE}`,
      );
      expect(calls).toEqual([]);
    },
  );

  it('Get Progress of Job ID "../x": refused, nothing sent', async () => {
    const { fns, calls } = mock({ operation: 'progress', jobId: '../x' });
    await expect(node.execute.call(fns)).rejects.toThrow(`Job ID "../x" ${RULE}`);
    expect(calls).toEqual([]);
  });
});
