// The job store: a bulk job's data that lives outside Temporal — its feed snapshot (item bodies) and its
// per-item outcomes (the report). Activities of one job land on ANY worker of the task queue, on any
// host, so every worker of a deployment must open the same store: PostgreSQL in production
// (job-store-pg.ts, `SELLING_KIT_JOB_STORE=postgres://…`), a local folder for `selling-kit dev` and
// single-host use (job-store-local.ts). Both pass one contract suite (test/job-store-contract.ts).
//
// Identity. A job's data is keyed by its workflow id AND the run id it started with (`firstRunId`,
// stable across continue-as-new and reset): a reused job id, or two ids that would sanitise alike, never
// share or drop lines. Every key an activity gets also names the store that holds it (`storeId`, from
// the job's snapshot): an activity whose worker opened a different store (a local folder on another
// host) fails retryably with JobStoreNotShared instead of writing where nobody will read.
//
// Outcomes. An activity writes the outcomes it decided as one *part* (`seq`, `attempt`): a retried
// attempt writes its own part, and rewriting a part replaces it whole (idempotent). The report is, per
// line, the outcome in the highest `seq` among the parts the workflow accepted (for each seq the accepted
// attempt, 1 unless the workflow says otherwise) with `seq <= upToSeq` — a zombie attempt's part or an
// abandoned run's (after a reset) never counts.
import type { ItemResult, JobKey, SnapshotMeta } from '../types.ts';

export type { JobKey, SnapshotMeta };

/** A job key as activities get it: also the job's user-facing ids and the store that holds its data. */
export interface JobRef extends JobKey {
  /** The id users know the job by (a many-shop job's shop: `<jobId>/<shopId>`). */
  jobId: string;
  /** `JobStore.id` of the store the job's snapshot was taken into. */
  storeId: string;
  /** A many-shop job's shop: the parent's job id and the shop id. */
  parentJobId?: string;
  shopId?: string;
  /**
   * The id its client gave this start (a random one in every signed start input: `BulkJobInput.startId`):
   * claimed once (`claimStart`), so a copy of the input started again under the same workflow id is refused.
   */
  startId?: string;
}

export interface JobRecord {
  key: JobKey;
  jobId: string;
  parentJobId?: string;
  shopId?: string;
  /** When the store first heard of the job (the store's clock; ISO 8601). */
  createdAt: string;
  /** Set by `finalize`. */
  endedAt?: string;
  state?: 'finished' | 'cancelled' | 'failed';
  /** What `finalize` was told: readers merge with the same rules afterwards. */
  accepted?: AcceptedAttempts;
  upToSeq?: number;
}

/** What a snapshot holds, besides its records. */
/** Receives a snapshot's records while the feed is read; nothing is visible before `commit`. */
export interface SnapshotWriter {
  /** Appends records in order (each one JSON text: a feed item, or `{"__malformed_row": "…"}`). */
  append(records: string[]): Promise<void>;
  /**
   * Publishes the snapshot atomically. If another attempt committed one for this job first, that one
   * stands and is returned (this writer's records are dropped).
   */
  commit(meta: SnapshotMeta): Promise<SnapshotMeta>;
  /** Drops what was written (an attempt that failed or was cancelled). */
  abort(): Promise<void>;
}

/** A part of a job's outcomes: written once per activity attempt, rewritten whole on retry. */
export interface OutcomePart {
  /** Increases in the order the workflow decided the parts (carried across continue-as-new). */
  seq: number;
  /** The activity attempt that wrote it (1 for the workflow's own outcomes). */
  attempt: number;
  /**
   * A long part may be written in pieces (a cancelled job's unread lines, streamed): each piece of one
   * (seq, attempt) is rewritten whole on its own; all pieces of an accepted part count. Default 0.
   */
  piece?: number;
  /** What wrote it: `feed`, `send`, `verify`, `wf`, `unread`… (for a person reading the store). */
  kind: string;
}

/**
 * Where an activity writes the outcomes it decides, as the workflow names it: the job and the part's
 * seq and kind (the attempt is the activity's own, `Context.current().info.attempt`).
 */
export interface PartRef {
  job: JobRef;
  seq: number;
  kind: string;
}

/** seq → the attempt the workflow accepted (absent: attempt 1). */
export type AcceptedAttempts = Record<number, number>;

/** Which parts count: the accepted attempt of each seq, seqs above `upToSeq` ignored. */
export interface MergeRule {
  accepted?: AcceptedAttempts;
  upToSeq?: number;
}

export interface OutcomePage {
  lines: ItemResult[];
  /** Pass as `afterLine` for the next page; absent on the last page. */
  nextAfterLine?: number;
}

export interface JobStore {
  /** `local` (a folder on this host) or `postgres`: messages and the host check. */
  readonly kind: 'local' | 'postgres';
  /** Where it is, without secrets (a folder, `postgres://host:port/db`). */
  readonly location: string;
  /** This store's identity (one per folder or database; stable across restarts). */
  id(): Promise<string>;
  /** Creates what the store needs (tables, folders); idempotent, safe to run from several workers at once. */
  migrate(): Promise<void>;

  /** The job's record (created by the first snapshot or part written for it). */
  getJob(key: JobKey): Promise<JobRecord | undefined>;
  /**
   * Records of a user-facing job id, newest first: the jobs named `jobId` and, for a many-shop job, its
   * shops' jobs (`parentJobId === jobId`).
   */
  findJobs(jobId: string): Promise<JobRecord[]>;

  /**
   * Records that `startId` started `job`; answers the job that claimed it first (`job` itself when this
   * call did, or on a retry). Removed with the job by `expire`.
   */
  claimStart(startId: string, job: JobKey): Promise<JobKey>;

  /** The job's committed snapshot, if any. */
  getSnapshot(job: JobRef): Promise<SnapshotMeta | undefined>;
  /** Starts writing the job's snapshot (creates the job's record when missing). */
  createSnapshot(job: JobRef): Promise<SnapshotWriter>;
  /** Records [from, to) of the job's committed snapshot, clamped to it, as JSON text. */
  readRecords(job: JobKey, from: number, to: number): Promise<string[]>;
  /** Removes the snapshot (the job has ended); its outcomes stay. */
  deleteSnapshot(job: JobKey): Promise<void>;

  /** Writes (or rewrites, replacing it whole) one part; an empty part clears an earlier write of it. */
  writePart(job: JobRef, part: OutcomePart, lines: ItemResult[]): Promise<void>;
  /** The report so far, by line, merged by `rule` (after `finalize`: by the rule it stored). */
  readOutcomes(job: JobKey, page?: { afterLine?: number; limit?: number } & MergeRule): Promise<OutcomePage>;
  /** Lines in the merged report. */
  countOutcomes(job: JobKey, rule?: MergeRule): Promise<number>;
  /**
   * The job has ended: stores the rule and its state on the job's record and answers how many lines the
   * merged report holds. Idempotent (a retried call answers the same).
   */
  finalize(
    job: JobRef,
    end: MergeRule & { state: 'finished' | 'cancelled' | 'failed' },
  ): Promise<{ lines: number }>;

  /** Removes every job (record, snapshot, outcomes) created before `before`; answers how many. */
  expire(before: Date): Promise<{ jobs: number }>;
  /**
   * Proves the store usable now: reachable, and writable by this worker (a write that leaves nothing
   * behind). The worker's start-up and its readiness (health-checks.ts) call it; throws why not.
   */
  probe?(): Promise<void>;
  close(): Promise<void>;
}

/** Thrown by activities when the job's data is in a store this worker does not see (retryable). */
export const JOB_STORE_NOT_SHARED = 'JobStoreNotShared';
/** Thrown by activities when the store cannot be reached (retryable: the job pauses, then retries). */
export const JOB_STORE_UNAVAILABLE = 'JobStoreUnavailable';

/** The plain reason an operator reads on the paused job. */
export const notSharedMessage = (job: JobRef, mine: { id: string; kind: string; location: string }) =>
  `job storage is not shared between workers: set SELLING_KIT_JOB_STORE (job ${job.jobId}'s data is in store ${job.storeId}; this worker's ${mine.kind} store ${mine.location} is ${mine.id})`;

/** The environment variable naming the store: `postgres://…` or a folder; default a local folder. */
export const JOB_STORE_ENV = 'SELLING_KIT_JOB_STORE';
/** Days a job's data is kept after it was created (the retention schedule's default). */
export const DEFAULT_JOB_RETENTION_DAYS = 30;
