// `node src/worker-main.ts`: a worker process. Credentials come from SELLING_KIT_CREDENTIALS, a JSON
// file `{ "<credentialRef>": { "baseUrl": "...", "apiKey": "..." } }` read by the worker only.
import { readFileSync } from 'node:fs';
import { createWorker } from './worker.ts';
import type { Credential } from './activities/index.ts';

const file = process.env.SELLING_KIT_CREDENTIALS;
if (!file) {
  console.error('SELLING_KIT_CREDENTIALS must name a credentials JSON file');
  process.exit(2);
}
const store = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Credential>;
const { worker, close } = await createWorker({
  address: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
  taskQueue: process.env.SELLING_KIT_TASK_QUEUE,
  credentials: (ref) => store[ref],
});
process.on('SIGINT', () => worker.shutdown());
process.on('SIGTERM', () => worker.shutdown());
console.log(`worker ready on task queue ${process.env.SELLING_KIT_TASK_QUEUE ?? 'selling-kit'}`);
await worker.run();
await close();
