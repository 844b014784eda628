// Retry policies more than one workflow gives its activities: one home, so the sale lane's and a lane
// ask's stay the same wherever they are used.

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
