// Dynamic options: the seller's addresses (where parcels leave from), for fields taking an address ID.
import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';
import { clientFor } from '../client';

export async function getAddresses(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
  const client = await clientFor(this);
  const options: INodePropertyOptions[] = [];
  for await (const a of client.shop.listAddresses())
    options.push({
      name: `${a.name} — ${[a.address, a.city, a.postal_code, a.country].filter(Boolean).join(', ')}`,
      value: a.id,
    });
  return options;
}
