// `node src/worker-main.ts`: a worker process, configured by environment variables (secrets stay in the
// worker, never in workflow inputs):
//   TEMPORAL_ADDRESS          default 127.0.0.1:7233
//   SELLING_KIT_TASK_QUEUE    default selling-kit
//   SELLING_KIT_CREDENTIALS   JSON file { "<credentialRef>": { "baseUrl": "...", "apiKey": "..." } } (direct partners)
//   SELLING_KIT_TOKEN_STORE   encrypted token store file of connected sellers (cross-listers), see token-store.ts
//   SELLING_KIT_KEY_FILE      where the generated local key lives (default ~/.selling-kit/codec.key);
//                             SELLING_KIT_CODEC_KEY (base64, 32 bytes) overrides it
//   SELLING_KIT_CODEC         "1": encrypt every payload (clients must use the same key)
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createWorker } from './worker.ts';
import { AesGcmCodec, loadCodecKey } from './codec.ts';
import { createFileTokenStore } from './token-store.ts';
import type { Credential } from './activities/index.ts';

const env = process.env;
const file = env.SELLING_KIT_CREDENTIALS;
if (!file && !env.SELLING_KIT_TOKEN_STORE) {
  console.error('set SELLING_KIT_CREDENTIALS (API keys) and/or SELLING_KIT_TOKEN_STORE (OAuth sellers)');
  process.exit(2);
}
const store = file ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, Credential>) : {};
const key = () => loadCodecKey(env.SELLING_KIT_KEY_FILE ?? join(homedir(), '.selling-kit', 'codec.key'));
const { worker, close } = await createWorker({
  address: env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
  taskQueue: env.SELLING_KIT_TASK_QUEUE,
  credentials: (ref) => store[ref],
  tokens: env.SELLING_KIT_TOKEN_STORE ? createFileTokenStore(env.SELLING_KIT_TOKEN_STORE, key()) : undefined,
  codec: env.SELLING_KIT_CODEC === '1' ? new AesGcmCodec(key()) : undefined,
});
process.on('SIGINT', () => worker.shutdown());
process.on('SIGTERM', () => worker.shutdown());
console.log(`worker ready on task queue ${env.SELLING_KIT_TASK_QUEUE ?? 'selling-kit'}`);
await worker.run();
await close();
