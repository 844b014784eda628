// The contract check's shared shapes: what the simulator records for each exchange it answers, and the
// variable that turns recording on. The recorder (simulator platform/contract-recorder.ts) writes them,
// scripts/contract-check.ts validates them against the document.

/** Set to a directory: the simulator appends each exchange to `<dir>/<pid>.ndjson`. */
export const CONTRACT_DIR_ENV = 'SELLING_KIT_CONTRACT_DIR';

/** One recorded exchange (one NDJSON line). */
export interface ContractExchange {
  operationId: string;
  method: string;
  path: string;
  query: Record<string, unknown>;
  /** Sent by the typed client (it always sets `x-request-id`), not by a test's raw request. */
  fromClient: boolean;
  requestContentType?: string;
  requestBody?: unknown;
  status: number;
  contentType?: string;
  /** The response body as sent (text). */
  body: string;
}
