// Attack (L7): a forger probing the webhook receiver must not learn which check failed (a stale
// timestamp vs a wrong signature vs no signature tells them what to change next). Every refused
// delivery gets the same 401 body; the reason goes to the receiver's log only; nothing is started.
// @needs temporal
import { randomUUID } from 'node:crypto';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { webhookHeaders } from '@selling-kit/api-client/core';
import {
  startWebhookReceiver,
  type ReceiverLogEntry,
  type WebhookReceiver,
} from '../../src/webhooks/webhook-receiver.ts';
import { delistWorkflowId } from '../../src/workflows/delist-on-sale.ts';

const SECRET = 'whsec_attack_receiver';
const SELLER = 4242;
let connection: Connection;
let client: Client;
let receiver: WebhookReceiver;
const logged: ReceiverLogEntry[] = [];

beforeAll(async () => {
  connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS! });
  client = new Client({ connection });
  receiver = await startWebhookReceiver({
    client,
    taskQueue: `attack-receiver-${randomUUID().slice(0, 8)}`,
    secret: SECRET,
    shops: [{ shopId: 'a', credentialRef: 'a', sellerId: SELLER }],
    log: (e) => logged.push(e),
  });
});

afterAll(async () => {
  await receiver?.close();
  await connection?.close();
});

const post = (body: string, headers: Record<string, string>) =>
  fetch(receiver.url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

describe('attack: probing the webhook receiver', () => {
  it('forged, stale and unsigned deliveries get one identical 401 body; reasons only in the log; nothing started', async () => {
    const purchaseId = `probe-${randomUUID()}`;
    const event = JSON.stringify({
      id: randomUUID(),
      event_type: 'v1:order.new',
      created_at: new Date().toISOString(),
      data: {
        seller_id: SELLER,
        purchase_id: purchaseId,
        status: 'SHIPPING_PENDING',
        line_items: [{ product_id: 1, slug: 'x' }],
      },
    });
    const attempts = [
      webhookHeaders(event, 'whsec_not_the_secret'),
      webhookHeaders(event, SECRET, Math.floor(Date.now() / 1000) - 3600),
      {},
    ];
    logged.length = 0;
    for (const headers of attempts) {
      const r = await post(event, headers);
      expect(r.status).toBe(401);
      expect(await r.text()).toBe(JSON.stringify({ error: 'unauthorized' }));
    }
    // The operator still learns why, from the log (never the secret).
    const reasons = logged.map((e) => e.reason);
    expect(reasons).toHaveLength(3);
    expect(new Set(reasons).size).toBe(3);
    expect(reasons).toContain('signature_mismatch');
    expect(reasons).toContain('timestamp_outside_tolerance');
    expect(JSON.stringify(logged)).not.toContain(SECRET);
    await expect(
      client.workflow.getHandle(delistWorkflowId('a', purchaseId)).describe(),
    ).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });
});
