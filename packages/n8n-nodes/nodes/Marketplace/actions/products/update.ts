// Product → Update. From version 3 it is n8n's partial change: the product and the Update Fields to
// change, nothing else required. The API has a PATCH for some fields only (price, discount, auto-offer
// prices, quantity, boost: the core's PatchProductRequest) and a full PUT for the rest, so:
//   - only PATCH-able fields changed → one PATCH carrying exactly those fields;
//   - any other field → the product is read, the changed fields merged over it, and the whole listing
//     sent back with PUT by its product ID (never by SKU, which could create one).
// The output says which (`sent_with`) and what changed (`updated`). Before version 3, "Update" was the
// full PUT (now Replace (All Fields), replace.ts): saved workflows keep it, fields and all.
import {
  NodeOperationError,
  type IDataObject,
  type IExecuteFunctions,
  type INodeProperties,
} from 'n8n-workflow';
import type { Product, ProductPutRequest, SellingClient } from '@selling-kit/api-client/client';
import { PatchProductRequest, ProductStatus } from '@selling-kit/api-client/core';
import { productLocator } from '../productFields';
import { productRef } from '../productRef';
import { rawJsonFields } from './additionalFields';
import { brandNotice, explainBrandRefusal } from './brand';
import { explainProductType } from './catalogue';
import { listingOptionsV3, nodeVersion } from './listingFields';
import { productOutput, statusWord } from './output';
import { checkMoney, prepareListing } from './prepareListing';
import * as replace from './replace';
import { updateFieldsCollection, updateWireFields } from './updateFields';

const V3_ON = { '@version': [{ _cnd: { gte: 3 } }] };

export const description: INodeProperties[] = [
  // Versions 1 and 2: the full PUT's fields, hidden from version 3 on (its version-3 form is Replace's).
  ...replace.description
    .filter(
      (field) =>
        JSON.stringify(field.displayOptions?.show?.['@version']) !== JSON.stringify(V3_ON['@version']),
    )
    .map((field) => ({
      ...field,
      displayOptions: { ...field.displayOptions, hide: { ...field.displayOptions?.hide, ...V3_ON } },
    })),
  // Version 3: the product, the fields to change, and Options.
  ...[productLocator, updateFieldsCollection, listingOptionsV3].map((field) => ({
    ...field,
    displayOptions: { show: { ...field.displayOptions?.show, ...V3_ON } },
  })),
];

/** The fields the API's PATCH takes (the core's PatchProductRequest). */
export const PATCH_FIELDS: readonly string[] = Object.keys(PatchProductRequest.shape);

/** A read listing as the PUT body that writes it back unchanged (read-only fields left out). */
export function putBodyOf(product: Product): IDataObject {
  const keep = [
    'address',
    'description',
    'price_currency',
    'price_amount',
    'discount_price',
    'auto_send_offer_price',
    'auto_negotiate_offer_price',
    'national_shipping_cost',
    'international_shipping_cost',
    'depop_shipping',
    'quantity',
    'department',
    'product_type',
    'size_set_id',
    'size_id',
    'variants',
    'condition',
    'colour',
    'style',
    'age',
    'source',
    'attributes',
    'is_boosted',
  ];
  const record = product as unknown as IDataObject;
  const body: IDataObject = Object.fromEntries(
    keep.filter((k) => record[k] !== undefined && record[k] !== null).map((k) => [k, record[k]]),
  );
  body.pictures = product.pictures.map((p) => ({ url: p.url }));
  body.brand_name = product.brand;
  return body;
}

/** The listing as read, with `changes` over it (a listing ships one way: a new way drops the other). */
export function mergedPutBody(product: Product, changes: IDataObject): IDataObject {
  const body = { ...putBodyOf(product), ...changes };
  if ('national_shipping_cost' in changes) delete body.depop_shipping;
  if ('depop_shipping' in changes) delete body.national_shipping_cost;
  return body;
}

async function partialUpdate(
  this: IExecuteFunctions,
  i: number,
  client: SellingClient,
): Promise<IDataObject> {
  const ref = productRef.call(this, i);
  const changes: IDataObject = {
    ...updateWireFields(this.getNodeParameter('updateFields', i, {}) as IDataObject),
    ...rawJsonFields.call(this, i),
  };
  const updated = Object.keys(changes);
  if (updated.length === 0)
    throw new NodeOperationError(this.getNode(), 'Update Fields: add at least one field to change', {
      itemIndex: i,
      description: 'Nothing was sent to the marketplace.',
    });

  checkMoney(this, i, changes);
  if (updated.every((field) => PATCH_FIELDS.includes(field))) {
    await client.products.patch(ref, changes);
    return { ...productOutput(await client.products.get(ref)), updated, sent_with: 'PATCH' };
  }

  // Checked before the read, so a refused brand costs no request at all.
  const prepared = await prepareListing(this, i, client, changes);
  const before = await client.products.get(ref);
  if (before.status !== ProductStatus.enum.STATUS_ONSALE)
    throw new NodeOperationError(
      this.getNode(),
      `Product ${before.product_id} is ${statusWord(before.status)}: Update changes products on sale`,
      {
        itemIndex: i,
        description:
          'Nothing was sent to the marketplace. Sending the whole listing would put a sold product back ' +
          'on sale: use Restock for that, or Replace (All Fields) to write every field.',
      },
    );
  const body = mergedPutBody(before, prepared) as ProductPutRequest;
  const byId = { productId: before.product_id };
  const typedBrand = 'brand_name' in changes ? String(body.brand_name) : '';
  await client.products
    .update(byId, body)
    .catch((error: unknown) =>
      Promise.reject(
        explainProductType(explainBrandRefusal(error, typedBrand), body.product_type, body.department),
      ),
    );
  const record = productOutput(await client.products.get(byId));
  const notice = typedBrand ? brandNotice(typedBrand, record.brand) : undefined;
  return { ...record, updated, sent_with: 'PUT', ...(notice ? { notice } : {}) };
}

export async function execute(
  this: IExecuteFunctions,
  i: number,
  client: SellingClient,
): Promise<IDataObject> {
  if (nodeVersion(this) < 3) return (await replace.execute.call(this, i, client)) as IDataObject;
  return await partialUpdate.call(this, i, client);
}
