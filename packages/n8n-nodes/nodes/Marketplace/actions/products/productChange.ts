// The execute of an operation that changes one product and says nothing else (boost, unboost, restock):
// version 2 reads the product back and returns it as it now is; version 1 returns the reference with
// what the change set.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { ProductRef, SellingClient } from '@selling-kit/api-client/client';
import { productOperation } from '../operation';
import { isV2 } from '../parameters';
import { productOutput } from './output';

export function productChange(
  change: (
    this: IExecuteFunctions,
    ref: ProductRef,
    client: SellingClient,
    i: number,
  ) => Promise<IDataObject>,
) {
  return productOperation(async function (ref, client, i) {
    const changed = await change.call(this, ref, client, i);
    return isV2(this) ? productOutput(await client.products.get(ref)) : { ...ref, ...changed };
  });
}
