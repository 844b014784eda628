// Codes the kit itself gives to items in reports and outcomes (not the API's): one home, read by the
// workflows and the activities alike (a workflow file, so it imports nothing).

/** A create refused because a listing already had the SKU before the job sent it (SPEC GAP: README). */
export const SKU_EXISTS = 'sku_exists';

/** An item cut off on the wire by a cancel: it may or may not have been applied. */
export const ABORTED = 'aborted';

/** An item a crashed (or timed-out) attempt may have sent: never re-sent in the same slot. */
export const IN_DOUBT = 'in_doubt';

/** Not sent: the API's host could not be reached (connection refused, unknown host, connect timeout). */
export const UNREACHABLE = 'unreachable';

/** Not sent: our side failed before the request left (the token store, the client), not the API. */
export const NOT_SENT = 'not_sent';
