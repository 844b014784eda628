// A test file's webhook receiver on its test env, wired to the simulator the way a partner's app is:
// the partner signs its deliveries with the receiver's secret and sends it the events it subscribed to.
import {
  startWebhookReceiver,
  type WebhookReceiver,
  type WebhookReceiverOptions,
} from '../src/webhooks/webhook-receiver.ts';
import { admin, subscribeWebhooks, type TestEnv } from './helpers.ts';

export interface PartnerReceiver {
  receiver: WebhookReceiver;
  /** The simulator's subscription that delivers to the receiver. */
  subscriptionId: string;
}

/**
 * Starts a receiver on `env`'s client and task queue (closed with the env), gives `partnerId` its secret
 * (`options.secret`) and subscribes the partner's shops' `eventTypes` to it.
 */
export async function startPartnerReceiver(
  env: TestEnv,
  partnerId: string,
  eventTypes: string[],
  options: Omit<WebhookReceiverOptions, 'client' | 'taskQueue' | 'secret'> & { secret: string },
): Promise<PartnerReceiver> {
  const receiver = await startWebhookReceiver({ client: env.client, taskQueue: env.taskQueue, ...options });
  env.closeWith(() => receiver.close());
  await admin(env, 'PATCH', `/admin/partners/${partnerId}`, { webhookSecret: options.secret });
  const subscriptionId = await subscribeWebhooks(env, partnerId, receiver.url, eventTypes);
  return { receiver, subscriptionId };
}
