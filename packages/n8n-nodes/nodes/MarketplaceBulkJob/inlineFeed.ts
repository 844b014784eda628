// Feeds the node hands to the worker inside the job's start payload (sealed by the codec), for a worker
// on another host: the workflow's own input items (one listing each) or a file from a binary field.
// Temporal bounds them: the server refuses a payload above 2 MiB, and the feed travels more than once
// through a job's history (start event, the worker's snapshot activity, each run after a
// continue-as-new; a many-shop job's children each get it). So an inline feed is at most 1 MiB, 1.5 MiB
// once JSON-encoded — larger ones go by file or URL — and a many-shop job starts only as many shops at
// once as keep one workflow task's child starts under 3 MiB (Temporal's gRPC messages are 4 MiB at most).
// The limits are the job contract's (the worker and every client check the same ones).
import { NodeOperationError, type INode, type INodeExecutionData } from 'n8n-workflow';
import {
  concurrentShops,
  inlineFeedBytes,
  INLINE_FEED_MAX_BYTES,
  INLINE_FEED_MAX_ENCODED_BYTES,
  INLINE_START_BUDGET_BYTES,
} from '@selling-kit/temporal-workflows/contract';

/** The worker's limits and concurrency rule (temporal-workflows' contract, bundled into the node). */
export { concurrentShops, INLINE_FEED_MAX_BYTES, INLINE_START_BUDGET_BYTES };

export type FeedFormat = 'csv' | 'json' | 'ndjson';

/** The worker's FeedRef with its text inline (types.ts); `path` only names it in messages. */
export interface InlineFeed {
  path: string;
  format: FeedFormat;
  content: string;
  cells?: boolean;
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;

/**
 * Refuses a feed above the limits before anything is started, naming the field and the way out: its
 * bytes, and its size JSON-encoded in the job's payload (`inlineFeedBytes` of its text).
 */
export function checkInlineSize(
  node: INode,
  field: string,
  bytes: number,
  itemIndex?: number,
  encodedBytes?: number,
): void {
  const over =
    bytes > INLINE_FEED_MAX_BYTES
      ? `${mib(bytes)} (${bytes} bytes) is above the 1 MiB a job can carry inline`
      : encodedBytes !== undefined && encodedBytes > INLINE_FEED_MAX_ENCODED_BYTES
        ? `${mib(encodedBytes)} once JSON-encoded (${encodedBytes} bytes: quotes and control characters are escaped) is above the 1.5 MiB a job's payload can carry inline`
        : undefined;
  if (!over) return;
  throw new NodeOperationError(node, `${field}: ${over}`, {
    itemIndex,
    description:
      "A feed sent with the job travels in Temporal payloads (refused above 2 MiB) and several times through the job's history, so it is limited to 1 MiB (1.5 MiB once JSON-encoded). Split the items over several jobs, or save the feed where the worker can read it and choose Feed Source: File Path or URL.",
  });
}

/**
 * The input items as an NDJSON feed: each item's JSON is one listing, its string values read like the
 * CSV feed's columns (`cells`: pictures split at `|`, numbers parsed) and other values as they are.
 */
export function itemsFeed(node: INode, items: INodeExecutionData[]): InlineFeed {
  if (items.length === 0) throw new NodeOperationError(node, 'Feed Source: there are no input items to send');
  const content = items.map((item) => JSON.stringify(item.json ?? {})).join('\n') + '\n';
  checkInlineSize(
    node,
    'Input Items',
    Buffer.byteLength(content, 'utf8'),
    undefined,
    inlineFeedBytes(content),
  );
  return { path: `n8n:input-items (${items.length})`, format: 'ndjson', content, cells: true };
}

/** A file from a binary field, as text (the worker refuses one that is not text, naming it). */
export function binaryFeed(
  node: INode,
  bytes: Buffer,
  name: string,
  format: FeedFormat,
  itemIndex: number,
): InlineFeed {
  checkInlineSize(node, `Input Binary Field "${name}"`, bytes.length, itemIndex);
  const content = bytes.toString('utf8');
  // Bytes that are not UTF-8 become U+FFFD (3 bytes each): the text sent is measured again.
  checkInlineSize(
    node,
    `Input Binary Field "${name}"`,
    Buffer.byteLength(content, 'utf8'),
    itemIndex,
    inlineFeedBytes(content),
  );
  return { path: `n8n:binary:${name}`, format, content };
}
