// Workflow histories for the replay tests: exported from the dev server as `temporal workflow show -o json`
// prints them, the committed ones kept under test/histories/ (one set per release: README, "Changing
// workflow code"), all replayed with the current workflow code as both kinds of worker run it: the plain
// bundle and the tracing one (OpenTelemetry's workflow interceptors must add no command).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Worker, type WorkflowBundle } from '@temporalio/worker';
import { dataConverter } from '../src/codec/data-converter.ts';
import { startTracing } from '../src/observability/tracing.ts';
import { workflowBundle } from '../src/worker/worker.ts';
import { dropSpans } from '../src/observability/tracing.ts';

export const HISTORIES_DIR = fileURLToPath(new URL('./histories/', import.meta.url));
/**
 * The release whose histories UPDATE_HISTORIES=1 adds: the packages' `major.minor` (they move together,
 * scripts/version.ts), so a minor release records a new set and a patch release replays the same one.
 */
export const RELEASE = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version
  .split('.')
  .slice(0, 2)
  .join('.');

export interface NamedHistory {
  name: string;
  workflowId: string;
  history: unknown;
}

/** One run of a workflow: its newest run unless `runId` names another (a run that continued as new). */
export type RunRef = string | { workflowId: string; runId: string };

/** A history as `temporal workflow show -o json` prints it. */
export function exportHistory(run: RunRef): unknown {
  const { workflowId, runId } = typeof run === 'string' ? { workflowId: run, runId: undefined } : run;
  const out = execFileSync(
    process.env.TEMPORAL_CLI_PATH!,
    [
      'workflow',
      'show',
      '--workflow-id',
      workflowId,
      ...(runId ? ['--run-id', runId] : []),
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
 * This run's histories, by name (the workflow type, or a path of it) → run; with `UPDATE_HISTORIES=1`,
 * each is also recorded as `<name>@<RELEASE>.json` where that file is missing (then `pnpm exec prettier
 * --write` the folder: the repo checks JSON formatting).
 */
export function freshHistories(ids: Record<string, RunRef>): NamedHistory[] {
  const fresh = Object.entries(ids).map(([name, run]) => ({
    name,
    workflowId: typeof run === 'string' ? run : run.workflowId,
    history: exportHistory(run),
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

/** The span sink a tracing worker registers (tracing.ts); spans of a replay are never exported. */
const tracingSinks = () =>
  startTracing('selling-kit-replay', new SimpleSpanProcessor(new InMemorySpanExporter())).workerOptions()
    .sinks;

/**
 * Replays `histories` with the current workflow code — the one bundle every worker runs (worker.ts) —
 * once as a worker that does not trace (spans dropped) and once as one that does
 * (`SELLING_KIT_TRACING=otlp`): the failures (`<workflowId> [<kind>]: <message>`) and how many histories
 * each replayed.
 */
export async function replayHistories(
  replayName: string,
  histories: { workflowId: string; history: unknown }[],
): Promise<{ failures: string[]; replayed: number }> {
  const failures: string[] = [];
  const counts: number[] = [];
  const bundles: [string, () => Promise<WorkflowBundle>, object][] = [
    ['plain', workflowBundle, { sinks: dropSpans }],
    ['traced', workflowBundle, { sinks: tracingSinks() }],
  ];
  for (const [kind, bundle, options] of bundles) {
    let replayed = 0;
    for await (const r of Worker.runReplayHistories(
      { workflowBundle: await bundle(), dataConverter: dataConverter(), replayName, ...options },
      histories.map(({ workflowId, history }) => ({ workflowId, history: history as never })),
    )) {
      replayed++;
      if (r.error) failures.push(`${r.workflowId} [${kind}]: ${r.error.message}`);
    }
    counts.push(replayed);
  }
  return { failures, replayed: Math.min(...counts) };
}
