// The product an item names, read and checked before any request: the patterns and rules of the picker's
// By ID and By URL modes, a picker value parsed into a product reference, and version 1's key fields read.
import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';
import { LISTING_URL_PREFIX, type ProductRef, type ProductRefKind } from '@selling-kit/api-client/core';
import { isV2 } from './parameters';

/** By ID: a product ID is a whole number above 0. */
export const PRODUCT_ID_PATTERN = '^\\s*[1-9][0-9]{0,14}\\s*$';
export const PRODUCT_ID_RULE = 'a product ID is a whole number above 0, e.g. 7033001';

/**
 * By URL: the product's page (`https://www.depop.com/products/<slug>/`, any subdomain, with or without
 * the scheme, a query or a fragment) or the slug alone; the first group is the slug.
 */
export const PRODUCT_URL_PATTERN =
  '^\\s*(?:(?:https?://)?(?:[\\w-]+\\.)*depop\\.com/products/)?([A-Za-z0-9][\\w-]*)/?(?:[?#]\\S*)?\\s*$';
export const PRODUCT_URL_RULE = `not a product URL or slug: expected ${LISTING_URL_PREFIX}<slug>/ or the slug alone`;

const PRODUCT_ID = new RegExp(PRODUCT_ID_PATTERN);
const PRODUCT_URL = new RegExp(PRODUCT_URL_PATTERN);

type LocatorValue = { __rl?: boolean; mode?: string; value?: unknown };

/**
 * A picker value as a product reference, or an error naming the mode and the rule. The value list
 * holds product IDs; a whole-parameter expression giving a plain string is taken as a SKU.
 */
export function parseProductLocator(raw: unknown): ProductRef | string {
  const locator: LocatorValue =
    raw && typeof raw === 'object'
      ? (raw as LocatorValue)
      : typeof raw === 'number'
        ? { mode: 'id', value: raw }
        : { mode: 'sku', value: raw };
  const value = String(locator.value ?? '').trim();
  const mode = locator.mode ?? 'list';
  if (!value)
    return mode === 'list'
      ? 'Product: choose a product from the list, or enter its SKU, ID or URL'
      : `Product (${MODE_LABEL[mode] ?? mode}): is required`;
  switch (mode) {
    case 'sku':
      return { sku: value };
    case 'list':
    case 'id':
      return PRODUCT_ID.test(value)
        ? { productId: Number(value) }
        : `Product (${MODE_LABEL[mode]}): "${value}" — ${PRODUCT_ID_RULE}`;
    case 'url': {
      const slug = PRODUCT_URL.exec(value)?.[1];
      return slug ? { slug } : `Product (By URL): "${value}" — ${PRODUCT_URL_RULE}`;
    }
    default:
      return `Product: unknown way to find a product "${mode}" (use From List, By SKU, By ID or By URL)`;
  }
}

const MODE_LABEL: Record<string, string> = {
  list: 'From List',
  sku: 'By SKU',
  id: 'By ID',
  url: 'By URL',
};

/** The product the item names (version 1's key fields or version 2's picker), checked before any request. */
export function productRef(this: IExecuteFunctions, i: number): ProductRef {
  if (isV2(this)) {
    const ref = parseProductLocator(this.getNodeParameter('product', i));
    if (typeof ref === 'string') throw new NodeOperationError(this.getNode(), ref, { itemIndex: i });
    return ref;
  }
  const key = this.getNodeParameter('productKey', i) as ProductRefKind;
  if (key === 'productId') {
    const productId = this.getNodeParameter('productId', i) as number;
    if (!Number.isInteger(productId) || productId <= 0)
      throw new NodeOperationError(this.getNode(), 'Product ID: must be a positive whole number', {
        itemIndex: i,
      });
    return { productId };
  }
  const value = String(this.getNodeParameter(key, i)).trim();
  if (!value)
    throw new NodeOperationError(this.getNode(), `${key === 'sku' ? 'SKU' : 'Slug'}: is required`, {
      itemIndex: i,
    });
  return key === 'sku' ? { sku: value } : { slug: value };
}
