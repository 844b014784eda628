// Runs the chosen operation for every input item: one client per execution (so pacing and retries
// span the items), results paired with their item, failures as n8n errors or, with Continue On Fail,
// as items carrying the code and error id.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { createNodeClient } from '../transport';
import type { ResourceModule } from './resource';
import { errorJson, toNodeError } from './errors';
import * as insights from './insights';
import * as offers from './offers';
import * as orders from './orders';
import * as pricing from './pricing';
import * as products from './products';
import * as refunds from './refunds';
import * as shipping from './shipping';
import * as shop from './shop';

/**
 * Every resource by its Resource value: its operations (run here) and its fields (the node's properties,
 * in this order).
 */
export const resources: Record<string, ResourceModule> = {
  products,
  offers,
  orders,
  refunds,
  shipping,
  shop,
  insights,
  pricing,
};

/** The value n8n gives the "Custom API Call" it adds to the Resource and Operation lists. */
export const CUSTOM_API_CALL = '__CUSTOM_API_CALL__';

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const items = this.getInputData();
  const client = await createNodeClient(this);
  const out: INodeExecutionData[] = [];
  for (let i = 0; i < items.length; i++) {
    const resource = this.getNodeParameter('resource', i) as string;
    const operation = this.getNodeParameter('operation', i) as string;
    const op = resources[resource]?.operations[operation];
    try {
      if (resource === CUSTOM_API_CALL || operation === CUSTOM_API_CALL)
        throw new NodeOperationError(
          this.getNode(),
          "Custom API Call runs in n8n's HTTP Request node: add one and choose Authentication → Predefined Credential Type → Marketplace API (or Marketplace OAuth2 API)",
          { itemIndex: i },
        );
      if (!op)
        throw new NodeOperationError(
          this.getNode(),
          `The operation "${operation}" of "${resource}" is not known`,
        );
      const result = await op.execute.call(this, i, client);
      for (const json of Array.isArray(result) ? result : [result])
        out.push({ json, pairedItem: { item: i } });
    } catch (error) {
      if (this.continueOnFail()) {
        // With "Continue (using error output)" n8n routes an item by its `error` (the json alone,
        // carrying more than `error`, would stay on the success output); plain Continue keeps the json.
        const toErrorOutput = this.getNode().onError === 'continueErrorOutput';
        out.push({
          json: errorJson(error, this.getNode()),
          ...(toErrorOutput ? { error: toNodeError(this.getNode(), error, i) } : {}),
          pairedItem: { item: i },
        });
        continue;
      }
      throw toNodeError(this.getNode(), error, i);
    }
  }
  return [out];
}
