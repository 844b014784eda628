// n8n inside `selling-kit dev`: launched early (its ~30 s start overlaps the demo job), then set up
// once the simulator is known (owner session, a public-API key, credentials, the example workflows
// active and their triggers subscribed), then the demo's sale and like. Nothing here stops the rest of
// the stack: a missing install is a one-line hint, a failure a warning naming n8n's log.
import { join } from 'node:path';
import type { Output } from '../output.ts';
import { N8nApi } from './api.ts';
import { runN8nDemo, waitForTriggers, type DemoRun, type DemoSimulator } from './demo.ts';
import { findN8nBin, installNodesPackage, INSTALL_HINT } from './install.ts';
import { loadOrCreateOwner, saveOwner, type N8nOwner } from './owner.ts';
import { spawnN8n, type N8nProcess } from './process.ts';
import {
  provisionN8n,
  registerTriggers,
  type ProvisionInput,
  type ProvisionedWorkflow,
} from './provision.ts';

export interface DevN8n {
  url: string;
  userFolder: string;
  ownerFile: string;
  owner: N8nOwner;
  /** True on the first run: the password is printed this once. */
  ownerCreated: boolean;
  process: N8nProcess;
  stop(): Promise<void>;
}

/** Paths of the dev n8n under the dev home (<home>/dev). */
export const devN8nPaths = (devHome: string) => ({
  userFolder: join(devHome, 'n8n'),
  ownerFile: join(devHome, 'n8n-owner.json'),
  logFile: join(devHome, 'n8n', 'n8n.log'),
});

/** Starts n8n (not yet ready); undefined, after a one-line hint, when n8n is not installed. */
export async function launchDevN8n(devHome: string, port: number, out: Output): Promise<DevN8n | undefined> {
  const bin = findN8nBin();
  if (!bin) {
    out.info(`n8n: not installed, the rest of the stack runs without it — ${INSTALL_HINT}`);
    return undefined;
  }
  const paths = devN8nPaths(devHome);
  const { owner, created } = loadOrCreateOwner(paths.ownerFile);
  await installNodesPackage(paths.userFolder);
  const proc = await spawnN8n({ bin, userFolder: paths.userFolder, port, logFile: paths.logFile, owner });
  return {
    url: proc.url,
    userFolder: paths.userFolder,
    ownerFile: paths.ownerFile,
    owner,
    ownerCreated: created,
    process: proc,
    stop: () => proc.stop(),
  };
}

export interface ReadyN8n {
  api: N8nApi;
  workflows: ProvisionedWorkflow[];
  imported: string[];
  subscribed: number;
}

/** Waits for n8n, then sets it up against the running simulator and Temporal. */
export async function setUpDevN8n(n8n: DevN8n, input: ProvisionInput): Promise<ReadyN8n> {
  await n8n.process.ready;
  const api = new N8nApi(n8n.url);
  await api.login(n8n.owner.email, n8n.owner.password);
  api.apiKey = n8n.owner.apiKey ?? '';
  if (!(await api.apiKeyWorks())) {
    api.apiKey = await api.createApiKey('selling-kit dev');
    n8n.owner.apiKey = api.apiKey;
    saveOwner(n8n.ownerFile, n8n.owner);
  }
  const { workflows, imported } = await provisionN8n(api, input);
  const subscribed = await registerTriggers(input.shop, workflows);
  await waitForTriggers(workflows);
  return { api, workflows, imported, subscribed };
}

/** The lines `dev` prints once n8n is set up (the owner's password only on the first run). */
export function readyLines(n8n: DevN8n, ready: ReadyN8n): string[] {
  return [
    `\nn8n ready: editor ${n8n.url}`,
    n8n.ownerCreated
      ? `  owner:       ${n8n.owner.email} / ${n8n.owner.password} (shown this once; kept in ${n8n.ownerFile}, mode 0600)`
      : `  owner:       ${n8n.owner.email} (password in ${n8n.ownerFile})`,
    '  credentials: demo shops "demo" and "demo-us", the webhook secret, the local Temporal',
    ...ready.workflows.map(
      (w) =>
        `  workflow:    "${w.name}" active${ready.imported.includes(w.name) ? ' (imported now)' : ''} → ${n8n.url}/workflow/${w.id}`,
    ),
  ];
}

export async function demoLines(ready: ReadyN8n, sim: DemoSimulator): Promise<string[]> {
  const runs: DemoRun[] = await runN8nDemo(ready.api, sim, ready.workflows);
  return [
    '\nn8n reacts to the simulator:',
    // A run counts as a success only with its effect on the simulator (a green run may send nothing).
    ...runs.map((r) =>
      !r.execution
        ? `  ${r.event} → "${r.workflow}": no ended execution yet (see the editor)`
        : r.execution.status === 'success' && r.effect
          ? `  ${r.event} → "${r.workflow}" execution ${r.execution.id}: success, ${r.effect}`
          : `  ${r.event} → "${r.workflow}" execution ${r.execution.id}: ${r.execution.status === 'success' ? 'ran but changed nothing' : r.execution.status} (see the editor)`,
    ),
  ];
}
