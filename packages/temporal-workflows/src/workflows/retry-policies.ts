// Retry policies and activity options more than one workflow gives its activities: one home, so the
// sale lane's, a lane ask's and a read's stay the same wherever they are used. Plain constants (the
// workflow bundle imports them; changing one changes the commands recorded histories replay).

/** The sale lane's (a sale, a delist): a 429 waits its Retry-After (nextRetryDelay), 5xx and timeouts back off. */
export const SALE_RETRY = {
  initialInterval: '200ms',
  backoffCoefficient: 2,
  maximumInterval: '30s',
  maximumAttempts: 12,
} as const;

/** Asking a shop's lane for slots: quick tries for a few seconds; longer trouble is the caller's to wait out. */
export const LANE_ASK_RETRY = {
  initialInterval: '200ms',
  maximumInterval: '5s',
  maximumAttempts: 8,
} as const;

/** Reads of a shop's recent orders or sales, and their reports: a blip is retried for a few minutes. */
export const READ_RETRY = { initialInterval: '1s', maximumInterval: '30s', maximumAttempts: 10 } as const;

/** A sale lane's request (a sale's mark-sold, a delist's): one request, retried as SALE_RETRY says. */
export const SALE_ACTIVITY = { startToCloseTimeout: '30 seconds', retry: SALE_RETRY } as const;

/** A job's or an offer's ask to its shop's lane. */
export const LANE_ASK_ACTIVITY = { startToCloseTimeout: '30 seconds', retry: LANE_ASK_RETRY } as const;
