// The package's entry points: the main entry (client side) and `./contract` never load
// @temporalio/worker (its native core), `./worker` does; contract.ts has no runtime import, so the n8n
// Bulk Job node can bundle it; and the contract's strings are the ones running jobs and recorded
// histories use.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as contract from '../src/contract.ts';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

/** Imports `specifier` in a fresh Node process and says whether @temporalio/worker got loaded. */
function loadsWorker(specifier: string): { exports: number; worker: boolean } {
  const script = `
    import { createRequire } from 'node:module';
    const m = await import(${JSON.stringify(specifier)});
    // CommonJS modules, @temporalio/worker among them, land in the one require cache however imported.
    const cache = createRequire(process.cwd() + '/').cache;
    const worker = Object.keys(cache).some((path) => path.includes('/@temporalio/worker/'));
    console.log(JSON.stringify({ exports: Object.keys(m).length, worker }));
  `;
  const out = execFileSync(process.execPath, ['--no-warnings', '--input-type=module', '-e', script], {
    cwd: packageDir,
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').pop()!) as { exports: number; worker: boolean };
}

describe('entry points', () => {
  it('the main entry (client side) does not load @temporalio/worker', () => {
    const main = loadsWorker('@selling-kit/temporal-workflows');
    expect(main.exports).toBeGreaterThan(50);
    expect(main.worker).toBe(false);
  }, 60_000);

  it('./contract does not load @temporalio/worker', () => {
    expect(loadsWorker('@selling-kit/temporal-workflows/contract')).toMatchObject({ worker: false });
  }, 60_000);

  it('./worker does (the check above can fail)', () => {
    expect(loadsWorker('@selling-kit/temporal-workflows/worker')).toMatchObject({ worker: true });
  }, 60_000);

  it('contract.ts imports types only (bundled by the n8n node, which has no runtime dependency)', () => {
    const source = readFileSync(new URL('../src/contract.ts', import.meta.url), 'utf8');
    const imports = source.match(/^\s*(import|export)\b[^;]*\bfrom\s+['"][^'"]+['"]/gm) ?? [];
    expect(imports.filter((line) => !/^\s*import type\b/.test(line))).toEqual([]);
  });
});

describe('the contract keeps every string running jobs and recorded histories use', () => {
  it('task queue and workflow ids', () => {
    expect(contract.DEFAULT_TASK_QUEUE).toBe('selling-kit');
    expect(contract.TASK_QUEUE).toBe('selling-kit');
    expect(contract.bulkWorkflowId('job-1')).toBe('bulk:job-1');
    expect(contract.shopJobId('job-1', 'shop-a')).toBe('job-1/shop-a');
    expect(contract.shopWorkflowId('job-1', 'shop-a')).toBe('bulk:job-1/shop-a');
    expect(contract.jobIdOfWorkflowId('bulk:job-1')).toBe('job-1');
    expect(contract.jobIdOfWorkflowId('bulk:job-1/shop-a')).toBeUndefined();
    expect(contract.jobIdOfWorkflowId('sale:shop:sku:x')).toBeUndefined();
    expect(contract.laneWorkflowId('q', 'shop-a', 'create_update')).toBe('lane:q:shop-a:create_update');
    expect(contract.appBudgetWorkflowId('q', 'app-1')).toBe('app-budget:q:app-1');
    expect(contract.saleWorkflowId('s', { sku: 'A-1' })).toBe('sale:s:sku:A-1');
    expect(contract.saleWorkflowId('s', { productId: 7 })).toBe('sale:s:id:7');
    expect(contract.saleWorkflowId('s', { slug: 'red-hat' })).toBe('sale:s:slug:red-hat');
    expect(contract.sellerAuthWorkflowId('seller-1')).toBe('auth:seller-1');
    expect(contract.shopDirectoryWorkflowId('q')).toBe('shop-directory:q');
    expect(contract.delistWorkflowId('s', 'p-1')).toBe('delist:s:p-1');
    expect(contract.orderWorkflowId('s', 'p-1')).toBe('order:s:p-1');
    expect(contract.likerOffersWorkflowId('s', 7)).toBe('offers:s:7');
    expect(contract.feedSyncWorkflowId('nightly')).toBe('feed-sync:nightly');
    expect(contract.reconcileWorkflowId('daily')).toBe('reconcile:daily');
    expect(contract.reconcileSalesWorkflowId('daily')).toBe('reconcile-sales:daily');
  });

  it('workflow types are the workflow functions’ names', async () => {
    const workflows = (await import('../src/workflows/index.ts')) as Record<string, unknown>;
    for (const name of Object.values(contract.WORKFLOW_TYPES))
      expect({ name, type: typeof workflows[name] }).toEqual({ name, type: 'function' });
    expect(contract.BULK_JOB_TYPES_QUERY).toBe(
      "WorkflowType = 'bulkListingWorkflow' OR WorkflowType = 'multiShopJobWorkflow'",
    );
  });

  it('messages are defined under the contract’s names', async () => {
    const w = await import('../src/workflows/index.ts');
    const names = {
      progress: w.progressQuery.name,
      pause: w.pauseSignal.name,
      resume: w.resumeSignal.name,
      cancel: w.cancelSignal.name,
      pauseJob: w.pauseUpdate.name,
      resumeJob: w.resumeUpdate.name,
      cancelJob: w.cancelUpdate.name,
      shopDone: w.shopDoneSignal.name,
      jobShops: w.shopsQuery.name,
      acquire: w.acquireUpdate.name,
      cap: w.capUpdate.name,
      ring: w.ringQuery.name,
      lease: w.leaseUpdate.name,
      leases: w.leasesUpdate.name,
      budget: w.budgetQuery.name,
      authState: w.authStateQuery.name,
      refresh: w.refreshUpdate.name,
      reconnect: w.reconnectUpdate.name,
      like: w.likeSignal.name,
      likerOffersState: w.likerOffersStateQuery.name,
      markShipped: w.markShippedUpdate.name,
      orderSeen: w.orderSeenSignal.name,
      orderState: w.orderStateQuery.name,
    };
    for (const [expected, actual] of Object.entries(names)) expect(actual).toBe(expected);
    const contractNames = [
      ...Object.values(contract.JOB_MESSAGES),
      ...Object.values(contract.LANE_MESSAGES),
      ...Object.values(contract.APP_BUDGET_MESSAGES),
      ...Object.values(contract.SELLER_AUTH_MESSAGES),
      ...Object.values(contract.LIKER_OFFERS_MESSAGES),
      ...Object.values(contract.ORDER_MESSAGES),
    ];
    expect(contractNames.sort()).toEqual(Object.keys(names).sort());
  });

  it('search attributes and operations', () => {
    expect(contract.SEARCH_ATTRIBUTE_NAMES).toEqual({
      shop: 'SellingKitShop',
      jobId: 'SellingKitJobId',
      operation: 'SellingKitOperation',
      orderState: 'SellingKitOrderState',
    });
    expect(contract.SEARCH_ATTRIBUTE_FLAGS).toEqual([
      '--search-attribute',
      'SellingKitShop=Keyword',
      '--search-attribute',
      'SellingKitJobId=Keyword',
      '--search-attribute',
      'SellingKitOperation=Keyword',
      '--search-attribute',
      'SellingKitOrderState=Keyword',
    ]);
    expect(contract.BULK_OPERATIONS).toEqual({
      create: 'create',
      upsert: 'upsert',
      update: 'update',
      patch: 'patch',
      delete: 'delete',
      'mark-sold': 'mark_as_sold',
    });
  });
});
