// The activities of a bulk job as its workflow calls them (bulk-listing.ts): timeouts, heartbeats and
// retries chosen per kind of work.
import { ActivityCancellationType, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { JOB_STORE_NOT_SHARED } from '../stores/job-store.ts';
import { LANE_ASK_ACTIVITY } from './retry-policies.ts';

/**
 * Activities retry briefly on their own (a blip of a few seconds never shows); longer trouble reaches the
 * workflow, which pauses the job with the reason and tries again on a capped backoff, as long as it takes
 * (`infra`, infra-trouble.ts). Non-retryable types are the only failures that fail a job.
 */
const retry = { initialInterval: '1s', maximumInterval: '10s', maximumAttempts: 4 } as const;
/** Long, heartbeating reads of the whole feed: the snapshot, the lines left unread by a cancel. */
export const { snapshotFeed, reportUnread } = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { ...retry, nonRetryableErrorTypes: ['FeedUnreadable', JOB_STORE_NOT_SHARED] },
});
/** Short file work: never heartbeats, so no heartbeat timeout. */
export const { readFeedChunk, appendReport, finalizeReport } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { ...retry, nonRetryableErrorTypes: ['FeedUnreadable', JOB_STORE_NOT_SHARED] },
});
/**
 * A window on the wire: heartbeats every second; a dead worker is noticed within 10 s. A cancel stops it
 * at once and waits for its answer: what was answered counts, what never left is not sent. Attempts after
 * the first send nothing (they only report): a few, then the window's items are in doubt.
 */
export const { sendBatch } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: {
    ...retry,
    maximumAttempts: 5,
    nonRetryableErrorTypes: ['FeedUnreadable', 'UnknownCredential', JOB_STORE_NOT_SHARED],
  },
});
export const { verifyBySku } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { ...retry, nonRetryableErrorTypes: ['UnknownCredential', JOB_STORE_NOT_SHARED] },
});
export const { acquireSlots } = proxyActivities<Activities>(LANE_ASK_ACTIVITY);

/**
 * SKUs checked per verification round. Verification GETs are not paced by the lane: they live in the
 * general group's reserve (DEFAULT_ALLOWANCES keeps 5 % of it back), so a round stays small; the rest
 * waits for the next turn, and a 429 ends a round early without failing anything.
 */
export const VERIFY_PER_ROUND = 50;
