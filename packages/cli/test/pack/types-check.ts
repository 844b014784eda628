// Compiled (not run) inside the throw-away npm project of pack.test.ts with `moduleResolution: nodenext`: the
// public entries' declarations resolve from the installed packages' dist/.
import { createClient, type SellingClient } from '@selling-kit/api-client';
import type { ProductCreateRequest } from '@selling-kit/api-client/core';
import { startSimulator, freePort } from '@selling-kit/simulator';
import { startBulkJob } from '@selling-kit/temporal-workflows';
import { DEFAULT_TASK_QUEUE } from '@selling-kit/temporal-workflows/contract';
import { createWorker } from '@selling-kit/temporal-workflows/worker';
import { buildProgram } from '@selling-kit/cli';

const client: SellingClient = createClient({ apiKey: 'k', baseUrl: 'http://127.0.0.1:1' });
const body: Pick<ProductCreateRequest, 'sku'> = { sku: 'A' };
export const used = [client, body, startSimulator, freePort, startBulkJob, createWorker, buildProgram];
export const queue: string = DEFAULT_TASK_QUEUE;
