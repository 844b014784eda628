// Workflow histories for the replay tests: exported from the dev server as `temporal workflow show -o json`
// prints them, the committed ones kept under test/histories/ (append-only, one set per release: README,
// "Changing workflow code"), all replayed with the current workflow code.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from '@temporalio/worker';
import { workflowCode } from '../src/worker.ts';

export const HISTORIES_DIR = fileURLToPath(new URL('./histories/', import.meta.url));
/** The release whose histories UPDATE_HISTORIES=1 adds. */
export const RELEASE = '0.3';

export interface NamedHistory {
  name: string;
  workflowId: string;
  history: unknown;
}

/** A history as `temporal workflow show -o json` prints it. */
export function exportHistory(workflowId: string): unknown {
  const out = execFileSync(
    process.env.TEMPORAL_CLI_PATH!,
    [
      'workflow',
      'show',
      '--workflow-id',
      workflowId,
      '--address',
      process.env.TEMPORAL_TEST_ADDRESS!,
      '--output',
      'json',
    ],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  return JSON.parse(out);
}

/**
 * This run's histories, by workflow type name → workflow id; with `UPDATE_HISTORIES=1`, each is also
 * recorded as `<type>@<RELEASE>.json` where that file is missing (then `pnpm exec prettier --write` the
 * folder: the repo checks JSON formatting).
 */
export function freshHistories(ids: Record<string, string>): NamedHistory[] {
  const fresh = Object.entries(ids).map(([name, workflowId]) => ({
    name,
    workflowId,
    history: exportHistory(workflowId),
  }));
  if (process.env.UPDATE_HISTORIES === '1') {
    mkdirSync(HISTORIES_DIR, { recursive: true });
    for (const h of fresh) {
      const file = `${HISTORIES_DIR}${h.name}@${RELEASE}.json`;
      if (!existsSync(file)) writeFileSync(file, JSON.stringify(h.history, null, 2) + '\n');
    }
  }
  return fresh;
}

/** Replays `histories` with the current workflow code: the failures (`<workflowId>: <message>`) and how many ran. */
export async function replayHistories(
  replayName: string,
  histories: { workflowId: string; history: unknown }[],
): Promise<{ failures: string[]; replayed: number }> {
  const failures: string[] = [];
  let replayed = 0;
  for await (const r of Worker.runReplayHistories(
    { ...workflowCode, replayName },
    histories.map(({ workflowId, history }) => ({ workflowId, history: history as never })),
  )) {
    replayed++;
    if (r.error) failures.push(`${r.workflowId}: ${r.error.message}`);
  }
  return { failures, replayed };
}
