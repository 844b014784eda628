// Plain payloads for the codec tests: JSON as the SDK's default converter writes it (encoding json/plain),
// bytes read back as text, and the serialization context the SDK gives a codec for a workflow. One copy for
// the codec, auth and client-keyring tests, so they seal the same payloads.
import type { Payload, SerializationContext } from '@temporalio/common';

export const utf8 = (s: string) => new TextEncoder().encode(s);
export const text = (b: Uint8Array | null | undefined) => Buffer.from(b ?? []).toString('utf8');

/** Serialized JSON `json` as a json/plain payload. */
export const jsonTextPayload = (json: string): Payload => ({
  metadata: { encoding: utf8('json/plain') },
  data: utf8(json),
});

/** `value` as a json/plain payload. */
export const jsonPayload = (value: unknown): Payload => jsonTextPayload(JSON.stringify(value));

/** The serialization context the SDK gives a codec for workflow `workflowId`. */
export const toWorkflow = (workflowId: string): SerializationContext => ({
  type: 'workflow',
  namespace: 'default',
  workflowId,
});
