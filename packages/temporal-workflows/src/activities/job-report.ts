// Reading a job's report for a client on any host: one page of the job's outcomes from the job store
// this worker opened (the store every worker of a deployment shares), run by the short report workflow
// (workflows/job-report.ts) that the client (client.ts `readReport`, the CLI, n8n's Bulk Job node) starts.
// No shared disk and no path in any input: the job id and its shops are all a reader names.
//
// Who: the reader names the job's shops (`shopIds`, which the codec checked its key is granted); a job
// whose recorded shops are not all named is refused (ReportRefused), nothing read. A one-shop job's
// record names its shop (since 0.5); a many-shop job's shops are its shops' records (the reader may also
// name shops not started yet). A record from before 0.5 names no shop: its shop is the job's
// `SellingKitShop` search attribute, while Temporal still holds the job; after that it is refused.
//
// Which records: the newest job named `jobId`, or — a many-shop job — the newest record of each of its
// shops, read one after another in shop-id order, every line with its `shopId`. Each record's lines are
// merged by the store with the rule its job stored at its end (a running job's: the lines so far).
// A page stops at JOB_REPORT_PAGE_MAX_BYTES of JSON (or fewer, if asked) and JOB_REPORT_PAGE_MAX_LINES
// lines: it travels as an activity result and a workflow result, each under Temporal's 2 MiB limit.
import { ApplicationFailure } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import {
  jobMessageProblem,
  JOB_REPORT_PAGE_MAX_BYTES,
  JOB_REPORT_PAGE_MAX_LINES,
  REPORT_REFUSED,
  shopList,
  type JobReportInput,
  type JobReportJob,
  type JobReportPage,
  type ReportLine,
} from '../contract.ts';
import type { JobRecord, JobStore } from '../stores/job-store.ts';
import { SHOP_ATTRIBUTE } from '../search-attributes.ts';
import type { ItemResult } from '../types.ts';
import type { ActivityContext } from './context.ts';

/** Lines asked of the store at once (a page may take several reads). */
const READ_CHUNK = 1000;

/** Where the next page starts: after line `a` of the job of shop `s` (a single job: no `s`). */
interface Cursor {
  s?: string;
  a?: number;
}

const BAD_CURSOR = 'BadReportCursor';

function parseCursor(text: string | undefined): Cursor {
  if (text === undefined) return {};
  try {
    const c = JSON.parse(text) as Cursor;
    if (
      typeof c === 'object' &&
      c !== null &&
      (c.s === undefined || typeof c.s === 'string') &&
      (c.a === undefined || Number.isInteger(c.a))
    )
      return c;
  } catch {
    // reported below
  }
  throw ApplicationFailure.nonRetryable(`not a report cursor: ${text.slice(0, 80)}`, BAD_CURSOR);
}

/** A record's shop: its own field, else the part of its job id after `<parent>/`. */
const shopOf = (r: JobRecord, parent: string) => r.shopId ?? r.jobId.slice(parent.length + 1);

/**
 * The records a report of `jobId` reads (`findJobs` answers newest first): the newest job of that id
 * (also a many-shop job's shop, `<jobId>/<shopId>`); or its shops' newest records — a many-shop job —
 * when it has shops recorded since it started (a reused id's older shops never mix in). Shops by id.
 */
export function reportRecords(
  records: JobRecord[],
  jobId: string,
): { shops: false; jobs: JobRecord[] } | { shops: true; jobs: (JobRecord & { shopId: string })[] } {
  const own = records.find((r) => r.jobId === jobId);
  const children = records.filter(
    (r) => r.parentJobId === jobId && r.jobId !== jobId && (!own || r.createdAt >= own.createdAt),
  );
  if (children.length === 0) return { shops: false, jobs: own ? [own] : [] };
  const newest = new Map<string, JobRecord & { shopId: string }>();
  for (const r of children) {
    const shopId = shopOf(r, jobId);
    if (!newest.has(shopId)) newest.set(shopId, { ...r, shopId });
  }
  return { shops: true, jobs: [...newest.values()].sort((a, b) => (a.shopId < b.shopId ? -1 : 1)) };
}

const emptyCounts = (): Record<ItemResult['status'], number> => ({
  ok: 0,
  failed: 0,
  invalid: 0,
  cancelled: 0,
  unknown: 0,
});

/** The job's summary line; with `counts`, every line read once to count them by status. */
async function summaryOf(store: JobStore, r: JobRecord, counts: boolean): Promise<JobReportJob> {
  const base = {
    jobId: r.jobId,
    // A many-shop job's shop (a one-shop job's record names its shop too, since 0.5: not shown).
    ...(r.shopId !== undefined && r.parentJobId !== undefined ? { shopId: r.shopId } : {}),
    createdAt: r.createdAt,
    ...(r.state ? { state: r.state } : {}),
    ...(r.endedAt ? { endedAt: r.endedAt } : {}),
  };
  if (!counts) return { ...base, lines: await store.countOutcomes(r.key) };
  const byStatus = emptyCounts();
  let lines = 0;
  let after: number | undefined;
  for (;;) {
    const page = await store.readOutcomes(r.key, { afterLine: after, limit: READ_CHUNK });
    for (const line of page.lines) byStatus[line.status] = (byStatus[line.status] ?? 0) + 1;
    lines += page.lines.length;
    if (page.nextAfterLine === undefined || page.lines.length === 0) break;
    after = page.nextAfterLine;
  }
  return { ...base, lines, counts: byStatus };
}

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/** A record's shop: its own (0.5 on), else the job's search attribute in Temporal (a 0.4 one-shop job). */
async function recordedShop(r: JobRecord, temporal: Client | undefined): Promise<string | undefined> {
  if (r.shopId !== undefined) return r.shopId;
  if (!temporal) return undefined;
  try {
    const desc = await temporal.workflow.getHandle(r.key.workflowId, r.key.firstRunId).describe();
    return desc.typedSearchAttributes.get(SHOP_ATTRIBUTE);
  } catch {
    return undefined; // gone from Temporal: unknown, refused below
  }
}

/**
 * Refuses (ReportRefused, non-retryable) a read whose named shops are not the records' shops: a one-shop
 * job's (or one shop's part) exactly, a many-shop job's every shop recorded so far.
 */
async function checkReader(
  input: JobReportInput,
  chosen: ReturnType<typeof reportRecords>,
  temporal: Client | undefined,
): Promise<void> {
  const refuse = (message: string) => {
    throw ApplicationFailure.nonRetryable(message, REPORT_REFUSED);
  };
  if (chosen.shops) {
    const recorded = chosen.jobs.map((j) => j.shopId);
    const named = Array.isArray(input.shopIds) ? input.shopIds : [];
    if (!recorded.every((s) => named.includes(s)))
      refuse(
        jobMessageProblem(input, input.jobId, recorded) ??
          `this message names shops ${shopList(named)}; job ${input.jobId} is for shops ${shopList(recorded)} and more`,
      );
    return;
  }
  const shop = await recordedShop(chosen.jobs[0]!, temporal);
  if (shop === undefined)
    refuse(
      `job ${input.jobId}'s shop is not recorded (a job from before 0.5 that Temporal no longer holds): its report is read from the job store by the operator`,
    );
  const problem = jobMessageProblem(input, input.jobId, [shop!]);
  if (problem) refuse(problem);
}

/**
 * One page of `input.jobId`'s report from `store`, for a reader naming the job's shops (the activity's
 * body; tests call it directly). `temporal`: where a 0.4 job's shop is looked up.
 */
export async function readJobReportPage(
  store: JobStore,
  input: JobReportInput,
  temporal?: Client,
): Promise<JobReportPage> {
  const maxBytes = Math.min(
    Math.max(1, input.maxBytes ?? JOB_REPORT_PAGE_MAX_BYTES),
    JOB_REPORT_PAGE_MAX_BYTES,
  );
  const maxLines = Math.min(Math.max(1, input.limit ?? JOB_REPORT_PAGE_MAX_LINES), JOB_REPORT_PAGE_MAX_LINES);
  const cursor = parseCursor(input.cursor);
  const chosen = reportRecords(await store.findJobs(input.jobId), input.jobId);
  const page: JobReportPage = {
    jobId: input.jobId,
    found: chosen.jobs.length > 0,
    store: `${store.kind} ${store.location}`,
    lines: [],
  };
  if (!page.found) return page;
  await checkReader(input, chosen, temporal);
  if (input.cursor === undefined || input.summaryOnly)
    page.jobs = await Promise.all(chosen.jobs.map((r) => summaryOf(store, r, input.summaryOnly === true)));
  if (input.summaryOnly) return page;

  // From the cursor's job (a shop removed meanwhile: the next one in order), after its line.
  const shopIds = chosen.shops ? chosen.jobs.map((j) => j.shopId) : [];
  let from = 0;
  if (chosen.shops && cursor.s !== undefined) {
    from = shopIds.findIndex((s) => s >= cursor.s!);
    if (from < 0) return page;
  }
  // The summary travels in the same payload.
  let bytes = page.jobs ? utf8(JSON.stringify(page.jobs)) : 0;
  for (let j = from; j < chosen.jobs.length; j++) {
    const record = chosen.jobs[j]!;
    const shopId = chosen.shops ? shopIds[j] : undefined;
    let after = j === from && (shopId === undefined || shopId === cursor.s) ? cursor.a : undefined;
    const stopHere = (): JobReportPage => ({
      ...page,
      nextCursor: JSON.stringify(shopId === undefined ? { a: after } : { s: shopId, a: after }),
    });
    for (;;) {
      const room = maxLines - page.lines.length;
      if (room <= 0) return stopHere();
      const read = await store.readOutcomes(record.key, {
        afterLine: after,
        limit: Math.min(room, READ_CHUNK),
      });
      for (const r of read.lines) {
        const line: ReportLine = shopId === undefined ? r : { ...r, shopId };
        const size = utf8(JSON.stringify(line)) + 1;
        // At least one line per page, however long: a reader always moves on.
        if (page.lines.length > 0 && bytes + size > maxBytes) return stopHere();
        page.lines.push(line);
        bytes += size;
        after = r.line;
      }
      if (read.nextAfterLine === undefined || read.lines.length === 0) break;
    }
  }
  return page;
}

export function createJobReportActivities(ctx: ActivityContext) {
  return {
    /** A page of a job's report from this worker's job store (any worker: the store is shared). */
    async readJobReport(input: JobReportInput): Promise<JobReportPage> {
      return readJobReportPage(ctx.deps.jobStore, input, ctx.deps.temporal);
    },
  };
}
