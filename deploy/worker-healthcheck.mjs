// Health check of the `worker` service (docker-compose.yml): healthy when this container's worker is
// polling its task queue, as the Temporal server sees it (DescribeTaskQueue lists recent pollers; the
// SDK's default worker identity is `<pid>@<hostname>`, and the hostname is the container's).
// Connects exactly as the worker does (src/connection-config.ts: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and
// the TEMPORAL_TLS_* files of deploy/env/temporal-client-tls.env — the frontend requires the client
// certificate), and reads SELLING_KIT_TASK_QUEUE. Exit 0 = healthy, 1 = not (yet) polling or unreachable.
import { createRequire } from 'node:module';
import { hostname } from 'node:os';

const require = createRequire(new URL('../packages/temporal-workflows/package.json', import.meta.url));
const { Connection } = require('@temporalio/client');
const { loadConnectionConfig, connectOptions } =
  await import('../packages/temporal-workflows/src/connection-config.ts');

const taskQueue = process.env.SELLING_KIT_TASK_QUEUE ?? 'selling-kit';
try {
  const config = loadConnectionConfig();
  const connection = await Connection.connect({ ...connectOptions(config), connectTimeout: 5000 });
  const { pollers } = await connection.workflowService.describeTaskQueue({
    namespace: config.namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: 1, // TASK_QUEUE_TYPE_WORKFLOW
  });
  await connection.close();
  const mine = (pollers ?? []).some((p) => p.identity?.endsWith(`@${hostname()}`));
  if (!mine) console.error(`no poller from ${hostname()} on task queue ${taskQueue}`);
  process.exit(mine ? 0 : 1);
} catch (e) {
  console.error(`health check failed: ${e.message}`);
  process.exit(1);
}
