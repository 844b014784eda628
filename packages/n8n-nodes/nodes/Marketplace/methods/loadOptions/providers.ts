// Dynamic options: the shipping providers available from the address the node has chosen (or, before
// one is chosen, from every address of the seller), with their parcel sizes in the label.
import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';
import { clientFor } from '../client';

/** The address chosen beside the field: Shipping → Get Providers' own, or the listing form's platform shipping. */
function chosenAddress(ctx: ILoadOptionsFunctions): unknown {
  for (const path of ['addressId', 'extraFields.platformShipping.shipping.addressId']) {
    try {
      const value = ctx.getCurrentNodeParameter(path);
      if (value !== undefined && value !== '') return value;
    } catch {
      // not a parameter of this operation
    }
  }
  return undefined;
}

export async function getShippingProviders(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
  const client = await clientFor(this);
  const chosen = Number(chosenAddress(this) ?? 0);
  const addressIds: number[] = [];
  if (Number.isInteger(chosen) && chosen > 0) addressIds.push(chosen);
  else for await (const a of client.shop.listAddresses()) addressIds.push(a.id);
  const sizes = new Map<string, Set<string>>();
  for (const addressId of addressIds)
    for (const provider of await client.shipping.listProviders(addressId)) {
      const known = sizes.get(provider.id) ?? new Set<string>();
      for (const size of provider.parcel_sizes ?? []) known.add(size.title || size.id);
      sizes.set(provider.id, known);
    }
  return [...sizes]
    .map(([id, titles]) => ({
      name: titles.size ? `${id} (${[...titles].join(', ')})` : id,
      value: id,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
