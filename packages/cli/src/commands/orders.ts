// `selling-kit orders start|ship|show|list`: the order flows (temporal-workflows workflows/order.ts) — a
// flow started by hand (the webhook receiver and the reconciliation start them on their own), an order's
// tracking code handed to its flow (which marks the parcel shipped, verified, never twice), a flow's state,
// and the flows waiting (or at risk).
import type { Command } from 'commander';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  listOrderFlows,
  orderFlowState,
  orderInputProblem,
  orderWorkflowId,
  shipOrder,
  ShipRequestRefused,
  startOrderFlow,
  type OrderFlowInput,
  type OrderFlowState,
  type ShipResult,
} from '@selling-kit/temporal-workflows';
import { action, type Context } from '../context.ts';
import { CliError, EXIT } from '../errors.ts';
import { liveWorkers } from '../job-progress.ts';
import { table } from '../output.ts';
import { withTemporal } from '../temporal.ts';

interface ShipFlags {
  shop: string;
  carrier: string;
  tracking: string;
  parcel?: string;
  resend?: boolean;
}

const noFlow = (shopId: string, purchaseId: string) =>
  new CliError(
    'order_flow_not_found',
    `order ${purchaseId} of shop ${shopId} has no order flow (${orderWorkflowId(shopId, purchaseId)})`,
    EXIT.notFound,
  );

/** The order's flow, or exit 4 naming it (a query: a worker answers it). */
async function flowOf(client: Client, shopId: string, purchaseId: string): Promise<OrderFlowState> {
  const state = await orderFlowState(client, { shopId, purchaseId });
  if (!state) throw noFlow(shopId, purchaseId);
  return state;
}

/**
 * The task queue of the order's flow while it runs (undefined once it has ended), from Temporal alone (no
 * worker needed), or exit 4 naming it.
 */
async function runningOn(client: Client, shopId: string, purchaseId: string): Promise<string | undefined> {
  try {
    const flow = await client.workflow.getHandle(orderWorkflowId(shopId, purchaseId)).describe();
    return flow.status.name === 'RUNNING' ? flow.taskQueue : undefined;
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) throw noFlow(shopId, purchaseId);
    throw e;
  }
}

const shipLine = (purchaseId: string, r: ShipResult): string => {
  switch (r.status) {
    case 'shipped':
      return `order ${purchaseId}: parcel ${r.parcelId} marked shipped${r.verified ? ' (answer lost; verified by reading the order)' : ''}`;
    case 'refused':
      return `order ${purchaseId}: the API refused parcel ${r.parcelId}: ${r.httpStatus ?? ''} ${r.code}: ${r.message}`;
    case 'in_doubt':
      return `order ${purchaseId}: parcel ${r.parcelId} may or may not be marked shipped (the answer was lost and the order cannot tell): check it, then run again with --resend`;
    case 'closed':
      return `order ${purchaseId}: nothing sent, the order has ended: ${r.outcome}`;
  }
};

async function ship({ config, out }: Context, purchaseId: string, flags: ShipFlags): Promise<number> {
  const result = await withTemporal(config, async (client) => {
    // An update waits for a worker of the flow's queue: without one, say so now rather than hang.
    const queue = await runningOn(client, flags.shop, purchaseId);
    if (queue !== undefined && (await liveWorkers(client, queue)) === 0)
      throw new CliError(
        'no_worker',
        `no worker is polling task queue ${queue}: start one with \`selling-kit worker\``,
        EXIT.noWorker,
      );
    try {
      return await shipOrder(
        client,
        { shopId: flags.shop, purchaseId },
        {
          carrier: flags.carrier,
          trackingCode: flags.tracking,
          ...(flags.parcel ? { parcelId: flags.parcel } : {}),
          ...(flags.resend ? { resend: true } : {}),
        },
      );
    } catch (e) {
      if (e instanceof ShipRequestRefused) throw new CliError('ship_refused', e.message, EXIT.usage);
      throw e;
    }
  });
  out.result(result, () => [shipLine(purchaseId, result)]);
  return result.status === 'shipped' ? EXIT.ok : EXIT.itemsFailed;
}

/** `24h,48h,72h` → ms; units ms, s, m, h, d. */
export function durationsMs(text: string, flag: string): number[] {
  const unit: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  return text.split(',').map((part) => {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(part.trim());
    if (!m)
      throw new CliError(
        'bad_duration',
        `${flag}: "${part}" is not a duration such as 90s, 24h or 7d`,
        EXIT.usage,
      );
    return Math.round(Number(m[1]) * unit[m[2]!]!);
  });
}

async function start(
  { config, out }: Context,
  purchaseId: string,
  flags: { shop: string; remindAfter?: string; atRiskEvery?: string; giveUpAfter?: string },
): Promise<void> {
  const reminders = {
    ...(flags.remindAfter ? { afterMs: durationsMs(flags.remindAfter, '--remind-after') } : {}),
    ...(flags.atRiskEvery ? { atRiskEveryMs: durationsMs(flags.atRiskEvery, '--at-risk-every')[0] } : {}),
    ...(flags.giveUpAfter ? { giveUpAfterMs: durationsMs(flags.giveUpAfter, '--give-up-after')[0] } : {}),
  };
  const input: OrderFlowInput = {
    purchaseId,
    shop: { shopId: flags.shop, credentialRef: flags.shop },
    startedBy: 'client',
    ...(Object.keys(reminders).length ? { reminders } : {}),
  };
  // The input's own rules (an id, a reminder plan) before anything connects: bad input, nothing started.
  const problem = orderInputProblem(input);
  if (problem) throw new CliError('bad_order_flow', problem, EXIT.usage);
  const started = await withTemporal(config, (client) => startOrderFlow(client, input, config.taskQueue));
  out.result(started, () => [
    started.started
      ? `order ${purchaseId}: flow started (${started.workflowId})`
      : `order ${purchaseId}: it has a flow already (${started.workflowId}); nothing started`,
  ]);
}

async function show({ config, out }: Context, purchaseId: string, flags: { shop: string }): Promise<void> {
  const state = await withTemporal(config, (client) => flowOf(client, flags.shop, purchaseId));
  out.result(state, () => [
    `order ${purchaseId} (shop ${state.shopId}): ${state.phase === 'ended' ? `ended ${state.outcome}` : state.phase}`,
    `  parcels ${state.parcelIds.join(', ') || '(not read yet)'}; shipped ${state.shipped.join(', ') || 'none'}`,
    `  reminders sent ${state.remindersSent}${state.nextReminderAt ? `, next ${new Date(state.nextReminderAt).toISOString()}` : ''}`,
  ]);
}

async function list(
  { config, out }: Context,
  flags: { shop?: string; atRisk?: boolean; all?: boolean },
): Promise<void> {
  const rows = await withTemporal(config, (client) =>
    listOrderFlows(client, { shopId: flags.shop, atRisk: flags.atRisk, all: flags.all }),
  );
  const shown = rows.map((r) => ({
    purchaseId: r.workflowId.split(':').slice(2).join(':'),
    shop: r.shopId ?? '',
    state: r.state ?? '',
    status: r.status.toLowerCase(),
    started: r.startTime.toISOString(),
  }));
  out.result(shown, () => table(shown, ['purchaseId', 'shop', 'state', 'status', 'started']));
}

export function registerOrders(program: Command): void {
  const orders = program
    .command('orders')
    .description("order flows: an order's way from order.new to shipped, with reminders while it waits");
  orders
    .command('start')
    .argument('<purchaseId>')
    .requiredOption('--shop <shopId>', 'the shop that sold')
    .option('--remind-after <durations>', 'reminders after the order, e.g. 24h,48h,72h (the default)')
    .option('--at-risk-every <duration>', 'then a reminder this often, at risk (default 7d)')
    .option('--give-up-after <duration>', 'stop waiting this long after the start (default 30d)')
    .description("start an order's flow by hand (once per order: a second start does nothing)")
    .action(action(start));
  orders
    .command('ship')
    .argument('<purchaseId>')
    .requiredOption('--shop <shopId>', 'the shop that sold')
    .requiredOption('--carrier <name>', 'the carrier (e.g. ROYAL_MAIL)')
    .requiredOption('--tracking <code>', 'tracking number(s), comma-separated, no spaces')
    .option('--parcel <parcelId>', 'the parcel (needed only when the order has several)')
    .option('--resend', 'send again after an in-doubt answer you have checked')
    .description(
      'hand the tracking code to the order flow: it marks the parcel shipped (verified, never twice)',
    )
    .action(action(ship));
  orders
    .command('show')
    .argument('<purchaseId>')
    .requiredOption('--shop <shopId>', 'the shop that sold')
    .description("an order flow's phase, parcels and reminders")
    .action(action(show));
  orders
    .command('list')
    .option('--shop <shopId>', 'only this shop')
    .option(
      '--at-risk',
      'only orders needing a person: past their last on-time reminder, or a mark-as-shipped in doubt',
    )
    .option('--all', 'ended flows too')
    .description(
      'order flows waiting to be shipped (from Temporal visibility: a new one shows within seconds)',
    )
    .action(action(list));
  orders.addHelpText(
    'after',
    `
Examples:
  $ selling-kit orders list --at-risk
  $ selling-kit orders show 5f1c0e2a --shop my-shop
  $ selling-kit orders ship 5f1c0e2a --shop my-shop --carrier ROYAL_MAIL --tracking GB123456789GB`,
  );
}
