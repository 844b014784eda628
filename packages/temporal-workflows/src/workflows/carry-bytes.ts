// Byte bounds of what a bulk job hands Temporal in one piece: its continue-as-new carry and its window's
// heartbeat details. A ContinueAsNew whose input is over the server's blob limit (2 MiB) TERMINATES the
// run, and a heartbeat over it fails the attempt, so both are bounded in bytes, not in items: an item's
// weight depends on its SKU and its last error. Messages stay short here; whole ones are in the report.
// Pure code (type imports only): read by the workflow and by activities (a window's heartbeat).
import type { FeedItem } from '../types.ts';
import { utf8Length } from '../contract.ts';

/** The most a carry or a window's heartbeat may weigh: a quarter of the 2 MiB blob limit. */
export const PAYLOAD_BUDGET_BYTES = 512 * 1024;
/**
 * No new chunk of the feed is read while the carry weighs more: what it holds may still grow about 3×
 * (an item of the queue that backs off carries its tries, backoff and last error; a create in doubt its
 * rounds too), which keeps the carry under PAYLOAD_BUDGET_BYTES.
 */
export const READ_BUDGET_BYTES = 160 * 1024;
/** Characters of an error message an item carries (its code and error id are kept whole). */
export const CARRIED_MESSAGE_CHARS = 80;

/** Bytes of a value as JSON, as Temporal's JSON payload converter writes it. */
export const jsonBytes = (value: unknown): number => utf8Length(JSON.stringify(value) ?? '');

/** An item's last error as it is carried: the code and error id whole, the message cut short. */
export function carriedError(error: {
  code: string;
  message: string;
  errorId?: string;
}): NonNullable<FeedItem['lastError']> {
  const message =
    error.message.length > CARRIED_MESSAGE_CHARS
      ? `${error.message.slice(0, CARRIED_MESSAGE_CHARS - 1)}…`
      : error.message;
  return error.errorId
    ? { code: error.code, message, errorId: error.errorId }
    : { code: error.code, message };
}

/** An item that failed retryably, as it waits out its backoff: sent again as a resend. */
export const backedOff = (
  item: FeedItem,
  error: { code: string; message: string; errorId?: string },
  tries: number,
  notBefore: number,
): FeedItem => ({ ...item, resend: true, tries, notBefore, lastError: carriedError(error) });

/** Whether the job may read another chunk of its feed: the carry is light enough to grow. */
export const mayRead = (carry: unknown): boolean => jsonBytes(carry) < READ_BUDGET_BYTES;

/** Whether a carry fits one continue-as-new (else the run goes on until it does). */
export const fitsOnePayload = (carry: unknown): boolean => jsonBytes(carry) <= PAYLOAD_BUDGET_BYTES;
