// What version 3 does to a listing body before it is sent (Create, Replace, and Update when it sends a
// whole listing): prices with too many decimals are refused in the user's words, the brand is checked
// against the catalogue unless Options → Fail If Brand Not Recognised is off, and Currency / Country
// left at "the shop's" become the shop's own — its country from the seller details, read once per
// execution, and that market's currency (core LISTING_MARKETS).
import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';
import type { SellingClient } from '@selling-kit/api-client/client';
import { LISTING_MARKETS } from '@selling-kit/api-client/core';
import { checkBrand, FAIL_ON_UNKNOWN_BRAND, FAIL_ON_UNKNOWN_BRAND_DEFAULT } from './catalogue';
import { SHOP_DEFAULT } from './formOptions';
import { label } from './labels';

/** One read of the seller details per client, i.e. per execution (the router makes one client). */
const shopCountries = new WeakMap<SellingClient, Promise<string>>();

function shopCountry(client: SellingClient): Promise<string> {
  let country = shopCountries.get(client);
  if (!country) {
    country = client.shop.get().then((shop) => shop.country_code);
    // A failed read is not kept: the next item asks again.
    country.catch(() => shopCountries.delete(client));
    shopCountries.set(client, country);
  }
  return country;
}

/** Whether item `i` fails on a brand the marketplace would not recognise (Options; on by default). */
export function failsOnUnknownBrand(ctx: IExecuteFunctions, i: number): boolean {
  const options = ctx.getNodeParameter('options', i, {}) as IDataObject;
  return (options[FAIL_ON_UNKNOWN_BRAND] as boolean | undefined) ?? FAIL_ON_UNKNOWN_BRAND_DEFAULT;
}

/** Currency and Country "of the shop" resolved; every other field as it is. */
export async function withShopDefaults(
  ctx: IExecuteFunctions,
  i: number,
  client: SellingClient,
  body: IDataObject,
): Promise<IDataObject> {
  const address = body.address as IDataObject | undefined;
  const wantsCountry = address?.country_code === SHOP_DEFAULT;
  const wantsCurrency = body.price_currency === SHOP_DEFAULT;
  if (!wantsCountry && !wantsCurrency) return body;
  const country = await shopCountry(client);
  const out: IDataObject = { ...body };
  if (wantsCountry) out.address = { ...address, country_code: country };
  if (wantsCurrency) {
    const currency = (LISTING_MARKETS as Record<string, string>)[country];
    if (!currency)
      throw new NodeOperationError(
        ctx.getNode(),
        `${label('price_currency')}: the shop's country (${country}) is not a market the node knows the currency of; choose the currency`,
        { itemIndex: i },
      );
    out.price_currency = currency;
  }
  return out;
}

const MONEY_FIELDS = [
  'price_amount',
  'discount_price',
  'national_shipping_cost',
  'international_shipping_cost',
  'auto_send_offer_price',
  'auto_negotiate_offer_price',
] as const;

/** "35.555" → "35.56": rounded half up to 2 decimals, on the digits (no floating point). */
function toCents(value: string): string {
  const [whole, fraction] = value.split('.') as [string, string];
  const cents = BigInt(`${whole}${fraction.slice(0, 2)}`) + (fraction.charCodeAt(2) >= 53 ? 1n : 0n);
  const digits = cents.toString().padStart(3, '0');
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/**
 * A money field with more than 2 decimals, in the user's words before the core's rule would say "must
 * be a decimal string…": "Price has 3 decimals (35.555): use at most 2, e.g. 35.56". Other malformed
 * values are left to the core's rules.
 */
export function checkMoney(ctx: IExecuteFunctions, i: number, body: IDataObject): void {
  for (const field of MONEY_FIELDS) {
    const value = body[field];
    const decimals = typeof value === 'string' ? /^\d+\.(\d{3,})$/.exec(value.trim())?.[1] : undefined;
    if (decimals)
      throw new NodeOperationError(
        ctx.getNode(),
        `${label(field)} has ${decimals.length} decimals (${String(value).trim()}): use at most 2, e.g. ${toCents(String(value).trim())}`,
        { itemIndex: i, description: 'Nothing was sent to the marketplace.' },
      );
  }
}

/** Version 3's checks and defaults on a listing body about to be sent (nothing is sent when they fail). */
export async function prepareListing(
  ctx: IExecuteFunctions,
  i: number,
  client: SellingClient,
  body: IDataObject,
): Promise<IDataObject> {
  checkMoney(ctx, i, body);
  if (typeof body.brand_name === 'string' && failsOnUnknownBrand(ctx, i))
    checkBrand(ctx.getNode(), body.brand_name, i);
  return await withShopDefaults(ctx, i, client, body);
}
