// Product → Create. Version 2 returns the listing as a read gives it (with its public `url` and its
// status as a word) and says when the brand typed was not recognised; version 3 refuses that brand
// before sending (unless told not to), fills in the shop's currency and country, and suggests product
// types when the service refuses one; version 1 returns the create answer (product ID, slug, SKU) as
// it always did.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type {
  ProductCreateOrUpdateResponse,
  ProductCreateRequest,
  SellingClient,
} from '@selling-kit/api-client/client';
import { brandNotice, explainBrandRefusal } from './brand';
import { explainProductType } from './catalogue';
import { prepareListing } from './prepareListing';
import { listingBody, listingFieldsWith, nodeVersion } from './listingFields';
import { productOutput } from './output';

export const description: INodeProperties[] = listingFieldsWith([
  {
    displayName: 'SKU',
    name: 'newSku',
    type: 'string',
    default: '',
    description:
      'Your reference for the listing; with it, a create that times out is verified instead of repeated',
    hint: 'At most 50 characters, unique in your shop (also against sold and deleted listings)',
  },
]);

export async function execute(
  this: IExecuteFunctions,
  i: number,
  client: SellingClient,
): Promise<IDataObject> {
  const sku = String(this.getNodeParameter('newSku', i, '') ?? '').trim();
  let body = { ...(sku ? { sku } : {}), ...listingBody.call(this, i) } as unknown as ProductCreateRequest;
  if (nodeVersion(this) < 2) return (await client.products.create(body)) as unknown as IDataObject;
  if (nodeVersion(this) >= 3)
    body = (await prepareListing(this, i, client, body as unknown as IDataObject)) as ProductCreateRequest;

  const typedBrand = String(body.brand_name ?? '');
  let created: ProductCreateOrUpdateResponse;
  try {
    created = await client.products.create(body);
  } catch (error) {
    throw explainProductType(explainBrandRefusal(error, typedBrand), body.product_type, body.department);
  }
  const notices: string[] = [];
  let record: IDataObject;
  try {
    // The client re-tries product_not_found on a key it just created (the spec's read-after-create delay).
    record = productOutput(await client.products.get({ productId: created.product_id }));
  } catch {
    // The listing exists: a read that still fails must not fail the create (a retry would duplicate it).
    record = productOutput({ ...created, sku: created.sku ?? (sku || null) });
    notices.push(
      'The listing was created, but its full record could not be read yet (new listings can take a moment ' +
        'to appear); read it later with Product → Get.',
    );
  }
  const brand = brandNotice(typedBrand, record.brand);
  if (brand) notices.push(brand);
  if (notices.length) {
    record.notice = notices.join(' ');
    if (typeof this.addExecutionHints === 'function')
      this.addExecutionHints(
        ...notices.map((message) => ({ message, type: 'warning' as const, location: 'outputPane' as const })),
      );
  }
  return record;
}
