// A window's heartbeat details within PAYLOAD_BUDGET_BYTES (workflows/carry-bytes.ts): a retried attempt
// reads them to know what its earlier attempt had been answered. As they are when they fit; else without
// messages; else with only the outcomes that fit. An outcome left out is in doubt for the retried attempt
// (a create is verified by SKU, anything else is sent again): never lost, never sent twice blind.
import type { SendOutcome } from '../types.ts';
import { jsonBytes, PAYLOAD_BUDGET_BYTES } from '../workflows/carry-bytes.ts';

/** An outcome without its free text (codes, ids and keys stay). */
function withoutText(o: SendOutcome): SendOutcome {
  switch (o.status) {
    case 'failed':
      return { ...o, message: '' };
    case 'retry':
      return { ...o, reason: '' };
    case 'unknown':
      return { line: o.line, status: 'unknown', code: o.code, errorId: o.errorId };
    case 'reauthorization_required':
      return { ...o, message: '' };
    default:
      return o;
  }
}

/** `progress` as heartbeat details of at most `budget` bytes. */
export function boundedProgress<P extends { outcomes: Record<number, SendOutcome> }>(
  progress: P,
  budget = PAYLOAD_BUDGET_BYTES,
): P {
  if (jsonBytes(progress) <= budget) return progress;
  const outcomes: Record<number, SendOutcome> = {};
  let bytes = jsonBytes({ ...progress, outcomes });
  for (const [line, o] of Object.entries(progress.outcomes)) {
    const short = withoutText(o);
    // `"line":{…},` in the object's JSON.
    const size = jsonBytes(line) + jsonBytes(short) + 2;
    if (bytes + size > budget) break;
    outcomes[Number(line)] = short;
    bytes += size;
  }
  return { ...progress, outcomes };
}
