// Run inside the throw-away npm project of pack.test.ts, by the Node under test: what a user's own worker
// imports (`@selling-kit/temporal-workflows/worker`), and Temporal's bundleWorkflowCode run on the
// installed package's compiled workflows (workflowBundle()). Prints one JSON line.
import { createWorker, workflowBundle, workflowCode } from '@selling-kit/temporal-workflows/worker';

const bundle = await workflowBundle();
console.log(
  JSON.stringify({
    node: process.version,
    createWorker: typeof createWorker,
    workflowsPath: workflowCode.workflowsPath,
    bytes: bundle.code.length,
  }),
);
