// Orders and parcels: creating an order from on-sale products (admin surface, staging purchase/
// endpoints), looking one up for the seller, the seller fee breakdown, and the wire form of an order
// (`orderToWire`). Labels are priced by the shipping-provider catalogue in ./shipping.ts; amounts are
// counted in cents (./money.ts).
import { randomUUID } from 'node:crypto';
import type { DepopShippingDetails, Order, OrderLineItem } from '@selling-kit/api-client/core';
import { apiError } from '../errors.ts';
import type { EventSink } from '../platform/events.ts';
import type { OrderRecord, ProductRecord, SellerState, World } from '../state.ts';
import { formatCents, toCents } from './money.ts';
import { parcelSizeCost } from './shipping.ts';
import { productUpdatedData } from './product-wire.ts';

// --- shares of an amount ------------------------------------------------------------------------------

/** `part` of `whole` (0..1 share) of `amount`, rounded half up to a cent. */
function share(amount: number, part: number, whole: number): number {
  if (whole <= 0) return 0;
  return Math.round((amount * part) / whole);
}

// --- fees ---------------------------------------------------------------------------------------------

/**
 * SPEC GAP (fee rates): the spec names the fee types, not their rates. Ours, in the order's currency:
 * - DEPOP_FEE: 10% of the items' sold prices;
 * - PAYMENT_FEE: 3.3% of what the buyer pays (items + shipping) plus a fixed 0.45;
 * - BOOSTED_FEE: 8% of the sold price of items that were boosted when bought (entry only when any);
 * - SHIPPING_FEE: platform shipping only: the label cost when the seller pays, "0.00" when the buyer pays.
 * Each fee is rounded half up to a cent.
 */
export const FEE_RATES = {
  depopPercent: 10,
  paymentPercent: 3.3,
  paymentFixedCents: 45,
  boostedPercent: 8,
} as const;

export type FeeType = 'PAYMENT_FEE' | 'DEPOP_FEE' | 'BOOSTED_FEE' | 'SHIPPING_FEE';
export interface FeeEntry {
  type: FeeType;
  cents: number;
}

/**
 * The simulator's order record: the shared `OrderRecord` plus what the wire form needs and the shared
 * record does not hold (fees fixed at purchase time, the label cost, the buyer).
 */
export interface SimOrderRecord extends OrderRecord {
  fees?: FeeEntry[];
  /** Platform shipping: the label cost (paid by the buyer or by the seller). */
  labelCostCents?: number;
  buyerId?: number;
}

const pct = (cents: number, percent: number) => Math.round((cents * percent) / 100);

// --- order totals -------------------------------------------------------------------------------------

export function itemsTotalCents(order: OrderRecord): number {
  return order.lineItems.reduce((sum, li) => sum + (toCents(li.sold_price) ?? 0), 0);
}

export function refundedCents(order: OrderRecord): { items: number; shipping: number } {
  return order.refunds.reduce(
    (acc, r) => ({ items: acc.items + r.itemsAmountCents, shipping: acc.shipping + r.shippingAmountCents }),
    { items: 0, shipping: 0 },
  );
}

export function buyerPaysCents(order: OrderRecord): number {
  return itemsTotalCents(order) + order.buyerShippingPriceCents;
}

/** The fee entries of an order: as fixed at purchase, or recomputed (no boost) for foreign records. */
export function orderFees(order: OrderRecord): FeeEntry[] {
  const sim = order as SimOrderRecord;
  if (sim.fees) return sim.fees;
  const items = itemsTotalCents(order);
  const fees: FeeEntry[] = [
    {
      type: 'PAYMENT_FEE',
      cents: pct(buyerPaysCents(order), FEE_RATES.paymentPercent) + FEE_RATES.paymentFixedCents,
    },
    { type: 'DEPOP_FEE', cents: pct(items, FEE_RATES.depopPercent) },
  ];
  if (order.depopShipping) {
    const label =
      sim.labelCostCents ??
      parcelSizeCost(
        order.depopShipping.shipping_provider_id,
        order.depopShipping.parcel_size_id,
        order.currency,
        order.currency,
      )?.cents ??
      0;
    fees.push({ type: 'SHIPPING_FEE', cents: order.depopShipping.payer === 'seller' ? label : 0 });
  }
  return fees;
}

function feeCents(fees: FeeEntry[], type: FeeType): number {
  return fees.filter((f) => f.type === type).reduce((s, f) => s + f.cents, 0);
}

/** What the seller receives before any refund: items (+ shipping when not platform-shipped) − fees. */
function sellerReceivesBeforeRefundCents(order: OrderRecord): number {
  const fees = orderFees(order);
  const shippingToSeller = order.depopShipping ? 0 : order.buyerShippingPriceCents;
  return itemsTotalCents(order) + shippingToSeller - fees.reduce((s, f) => s + f.cents, 0);
}

/** Items are refunded in full (our "full refund": SPEC GAP, see refunds.ts). */
export function isFullyRefunded(order: OrderRecord): boolean {
  return order.refunds.length > 0 && refundedCents(order).items >= itemsTotalCents(order);
}

// --- wire form ------------------------------------------------------------------------------------------

function refundSummary(order: OrderRecord): NonNullable<Order['refund_summary']> {
  const fees = orderFees(order);
  const items = itemsTotalCents(order);
  const buyerPays = buyerPaysCents(order);
  const refunded = refundedCents(order);
  const buyerRefund = refunded.items + refunded.shipping;
  const last = order.refunds[order.refunds.length - 1]!;
  // Fees go back to the seller in proportion to what was refunded: the item-based fees by the
  // items' share, the payment fee by the share of what the buyer paid. The seller's label cost comes
  // back only on a full refund of a seller-paid platform label (public reference).
  const fullRefund = isFullyRefunded(order);
  const toSeller = {
    ads_fee_refund_amount: share(feeCents(fees, 'BOOSTED_FEE'), refunded.items, items),
    payment_fee_refund_amount: share(feeCents(fees, 'PAYMENT_FEE'), buyerRefund, buyerPays),
    depop_fee_refund_amount: share(feeCents(fees, 'DEPOP_FEE'), refunded.items, items),
    shipping_refund_amount:
      fullRefund && order.depopShipping?.payer === 'seller' ? feeCents(fees, 'SHIPPING_FEE') : 0,
  };
  const sellerTotal = Object.values(toSeller).reduce((s, v) => s + v, 0);
  return {
    buyer_refund_amount: formatCents(buyerRefund),
    // Deprecated upstream ("known to be wrong"); ours is the sum of the seller-side breakdown.
    seller_refund_amount: formatCents(sellerTotal),
    refund_date: new Date(last.at).toISOString(),
    refunded_by: 'PARTNER',
    breakdown: {
      refunded_to_buyer: {
        item_refund_amount: formatCents(refunded.items),
        shipping_refund_amount: formatCents(refunded.shipping),
        // No buyer-side marketplace fee and no tax are charged by the simulator.
        depop_fee_refund_amount: '0.00',
        tax_refund_amount: '0.00',
      },
      refunded_to_seller: {
        ads_fee_refund_amount: formatCents(toSeller.ads_fee_refund_amount),
        payment_fee_refund_amount: formatCents(toSeller.payment_fee_refund_amount),
        depop_fee_refund_amount: formatCents(toSeller.depop_fee_refund_amount),
        shipping_refund_amount: formatCents(toSeller.shipping_refund_amount),
      },
    },
  };
}

/**
 * The order as GET /api/v1/orders/{purchase_id}/ returns it. `seller_receives_amount` is net of
 * refunds (what was refunded to the buyer is taken back, refunded fees are given back).
 * SPEC GAP (tax): the simulator collects no tax, so `buyer_tax_amount` is never present.
 */
export function orderToWire(order: OrderRecord): Order {
  const fees = orderFees(order);
  let sellerReceives = sellerReceivesBeforeRefundCents(order);
  let summary: Order['refund_summary'];
  if (order.refunds.length > 0) {
    summary = refundSummary(order);
    const back = summary.breakdown.refunded_to_seller;
    sellerReceives +=
      -(toCents(summary.buyer_refund_amount) ?? 0) +
      (toCents(back.ads_fee_refund_amount) ?? 0) +
      (toCents(back.payment_fee_refund_amount) ?? 0) +
      (toCents(back.depop_fee_refund_amount) ?? 0) +
      (toCents(back.shipping_refund_amount) ?? 0);
  }
  const wire: Order = {
    seller_id: order.sellerId,
    purchase_id: order.purchaseId,
    status: order.status,
    currency: order.currency,
    buyer_pays_amount: formatCents(buyerPaysCents(order)),
    seller_receives_amount: formatCents(sellerReceives),
    buyer_shipping_price: formatCents(order.buyerShippingPriceCents),
    buyer_address: { ...(order.buyerAddress as Order['buyer_address']) },
    line_items: order.lineItems.map((li) => ({ ...li })),
    seller_fee_breakdown: fees.map((f) => ({
      fee_type: f.type,
      amount: formatCents(f.cents),
      currency: order.currency,
    })),
    created_at: new Date(order.createdAt).toISOString(),
  };
  if (order.depopShipping)
    wire.depop_shipping = { shipping_provider_id: order.depopShipping.shipping_provider_id };
  if (summary) wire.refund_summary = summary;
  return wire;
}

/** The `v1:order.new` webhook data: the order minus fee breakdown/tax/dates, address `country`. */
export function orderNewEventData(order: OrderRecord): Record<string, unknown> {
  const wire = orderToWire(order);
  const { country_code, ...address } = wire.buyer_address;
  const data: Record<string, unknown> = {
    seller_id: wire.seller_id,
    purchase_id: wire.purchase_id,
    status: wire.status,
    currency: wire.currency,
    buyer_pays_amount: wire.buyer_pays_amount,
    seller_receives_amount: wire.seller_receives_amount,
    fee_amount: formatCents(orderFees(order).reduce((s, f) => s + f.cents, 0)),
    buyer_shipping_price: wire.buyer_shipping_price,
    buyer_address: { ...address, country: country_code },
    line_items: wire.line_items,
  };
  if (wire.depop_shipping) data.depop_shipping = wire.depop_shipping;
  return data;
}

// --- finding an order --------------------------------------------------------------------------------

/** One of the seller's orders by purchase ID; another seller's or an unknown one → 404. */
export function findOrder(seller: SellerState, purchaseId: string | undefined): OrderRecord {
  const order = purchaseId === undefined ? undefined : seller.orders.get(purchaseId);
  if (!order)
    throw apiError('purchase_id_not_found', `no order with purchase ID ${purchaseId} for this seller`);
  return order;
}

// --- creating an order ----------------------------------------------------------------------------------

function productPriceCents(product: ProductRecord): { original: number; sold: number } {
  const original = toCents(product.fields.price_amount) ?? 0;
  const discount = toCents(product.fields.discount_price);
  const sold = discount !== null && discount > 0 && discount < original ? discount : original;
  return { original, sold };
}

function productShipping(
  product: ProductRecord,
  currency: string,
): { platform?: DepopShippingDetails; cents: number } {
  const details = product.fields.depop_shipping as DepopShippingDetails | undefined;
  if (details && typeof details === 'object' && typeof details.shipping_provider_id === 'string') {
    const cost =
      parcelSizeCost(
        details.shipping_provider_id,
        String(details.parcel_size_id ?? ''),
        currency,
        currency,
      ) ?? parcelSizeCost(details.shipping_provider_id, 'SMALL', currency, currency);
    return { platform: details, cents: cost?.cents ?? 0 };
  }
  return { cents: Math.max(0, toCents(product.fields.national_shipping_cost) ?? 0) };
}

interface BuyerStreet {
  address: string;
  city: string;
  postal_code: string;
  state: string | null;
}

/** The test buyer's street in the countries we seed; any other country gets a placeholder street. */
const BUYER_STREETS: Readonly<Record<string, BuyerStreet>> = {
  US: { address: '350 Fifth Avenue', city: 'New York', postal_code: '10118', state: 'NY' },
  GB: { address: '221B Baker Street', city: 'London', postal_code: 'NW1 6XE', state: null },
};
const PLACEHOLDER_STREET: BuyerStreet = {
  address: '1 Test Street',
  city: 'Test City',
  postal_code: '00000',
  state: null,
};

function buyerAddressFor(countryCode: string, buyerId: number): Record<string, unknown> {
  const street = Object.hasOwn(BUYER_STREETS, countryCode) ? BUYER_STREETS[countryCode]! : PLACEHOLDER_STREET;
  return {
    name: `Test Buyer ${buyerId}`,
    address: street.address,
    address2: null,
    city: street.city,
    postal_code: street.postal_code,
    state: street.state,
    country_code: countryCode,
    phone_number: null,
  };
}

/** SPEC GAP (test buyer): purchases without a buyer id come from this fixed test buyer. */
export const DEFAULT_TEST_BUYER_ID = 990_001;

/**
 * A test buyer purchases `productIds` (one unit per occurrence; repeat an id to buy several units) from
 * `seller`. All products must exist in the seller's shop (else 404 product_not_found) and be on sale
 * with enough quantity (else 422 product_not_on_sale); nothing changes unless every product passes.
 * Each unit becomes a line item; all line items share one parcel (public reference). Quantities
 * decrement; a product reaching 0 becomes 'sold' and its active offers are cancelled. The order starts
 * SHIPPING_PENDING and `v1:order.new` is emitted.
 *
 * SPEC GAP (mixed bundles): the order's shipping mode (platform or manual) and platform details are the
 * first product's; the buyer's shipping price is the highest shipping price among the items (one
 * parcel). All products must share one currency (else 422 validation).
 */
export function createOrder(
  world: World,
  seller: SellerState,
  productIds: number[],
  opts: { now: number; buyerId?: number; events: EventSink },
): OrderRecord {
  if (productIds.length === 0) throw apiError('validation', 'an order needs at least one product');
  const wanted = new Map<number, number>();
  for (const id of productIds) wanted.set(id, (wanted.get(id) ?? 0) + 1);
  const products: ProductRecord[] = [];
  for (const [id, count] of wanted) {
    const product = seller.products.get(id);
    if (!product || product.state === 'removed')
      throw apiError('product_not_found', `no product with product ID ${id} in this shop`);
    if (product.state !== 'selling' || product.quantity < count)
      throw apiError(
        'product_not_on_sale',
        product.state === 'selling'
          ? `product ${id} has only ${product.quantity} left, ${count} requested`
          : `product ${id} is not on sale (it is ${product.state})`,
      );
    products.push(product);
  }
  const currencyOf = (p: ProductRecord) =>
    typeof p.fields.price_currency === 'string' ? p.fields.price_currency : seller.currency;
  const currency = currencyOf(products[0]!);
  const other = products.find((p) => currencyOf(p) !== currency);
  if (other)
    throw apiError(
      'validation',
      `all items of an order must share one currency: product ${other.productId} is in ${currencyOf(other)}, not ${currency}`,
    );

  const parcelId = randomUUID();
  const buyerId = opts.buyerId ?? DEFAULT_TEST_BUYER_ID;
  const lineItems: OrderRecord['lineItems'] = [];
  let itemsCents = 0;
  let boostedCents = 0;
  let shippingCents = 0;
  const first = productShipping(products[0]!, currency);
  for (const id of productIds) {
    const product = seller.products.get(id)!;
    const price = productPriceCents(product);
    itemsCents += price.sold;
    if (product.isBoosted) boostedCents += price.sold;
    shippingCents = Math.max(shippingCents, productShipping(product, currency).cents);
    const item: OrderLineItem & OrderRecord['lineItems'][number] = {
      purchase_item_id: ++world.ids.lineItem,
      sku: product.sku,
      product_id: product.productId,
      slug: product.slug,
      parcel_id: parcelId,
      description: typeof product.fields.description === 'string' ? product.fields.description : '',
      original_price: formatCents(price.original),
      sold_price: formatCents(price.sold),
      sold_via_offers: false,
      image_url: product.pictures[0]?.url ?? '',
    };
    lineItems.push(item);
  }

  const platform = first.platform;
  const labelCents = platform ? shippingCents : undefined;
  const buyerShippingCents = platform ? (platform.payer === 'buyer' ? shippingCents : 0) : shippingCents;
  const buyerPays = itemsCents + buyerShippingCents;
  const fees: FeeEntry[] = [
    { type: 'PAYMENT_FEE', cents: pct(buyerPays, FEE_RATES.paymentPercent) + FEE_RATES.paymentFixedCents },
    { type: 'DEPOP_FEE', cents: pct(itemsCents, FEE_RATES.depopPercent) },
  ];
  if (boostedCents > 0)
    fees.push({ type: 'BOOSTED_FEE', cents: pct(boostedCents, FEE_RATES.boostedPercent) });
  if (platform)
    fees.push({ type: 'SHIPPING_FEE', cents: platform.payer === 'seller' ? (labelCents ?? 0) : 0 });

  const order: SimOrderRecord = {
    purchaseId: String(++world.ids.order),
    sellerId: seller.id,
    status: 'SHIPPING_PENDING',
    currency,
    lineItems,
    buyerShippingPriceCents: buyerShippingCents,
    ...(platform ? { depopShipping: { ...platform } } : {}),
    parcels: new Map([[parcelId, { shipped: false }]]),
    refunds: [],
    buyerAddress: buyerAddressFor(seller.countryCode, buyerId),
    createdAt: opts.now,
    fees,
    ...(labelCents !== undefined ? { labelCostCents: labelCents } : {}),
    buyerId,
  };

  const changed: { product: ProductRecord; fields: string[] }[] = [];
  for (const [id, count] of wanted) {
    const product = seller.products.get(id)!;
    product.quantity -= count;
    product.updatedAt = opts.now;
    const fields = ['quantity'];
    if (product.quantity <= 0) {
      product.quantity = 0;
      product.state = 'sold';
      product.soldVia = 'purchased';
      fields.push('status');
      for (const offer of seller.offers)
        if (offer.productId === id && offer.state === 'active') offer.state = 'cancelled';
    }
    changed.push({ product, fields });
  }
  seller.orders.set(order.purchaseId, order);
  opts.events.emit(seller.id, 'v1:order.new', orderNewEventData(order));
  // A purchase changes its listings like any write does: one product-change event each, after the order.
  for (const { product, fields } of changed)
    opts.events.emit(seller.id, 'v1:product.updated', productUpdatedData(product, fields));
  return order;
}

// --- parcels ----------------------------------------------------------------------------------------------

/**
 * Marks one parcel shipped with its tracking. Errors (checked in this order):
 * - 422 validation when the order is REFUNDED or CANCELLED (SPEC GAP: nothing left to ship);
 * - 409 generic_error when the parcel was already shipped with a different tracking number or carrier
 *   (SPEC GAP); the same tracking number and carrier again is an idempotent 200 with no change.
 * SPEC GAP (platform shipping): orders with a platform label may be marked shipped too (the label's
 * tracking number is the partner's to report).
 * The order becomes SHIPPED once every parcel is shipped.
 */
export function markParcelShipped(
  order: OrderRecord,
  parcelId: string,
  tracking: { trackingNumber: string; carrier: string },
): { changed: boolean } {
  const parcel = order.parcels.get(parcelId)!;
  if (order.status === 'REFUNDED' || order.status === 'CANCELLED')
    throw apiError(
      'validation',
      `order ${order.purchaseId} is ${order.status}: a parcel of a refunded or cancelled order cannot be marked as shipped`,
    );
  if (parcel.shipped) {
    if (parcel.trackingNumber === tracking.trackingNumber && parcel.carrier === tracking.carrier)
      return { changed: false };
    throw apiError(
      'generic_error',
      `parcel ${parcelId} is already marked as shipped with tracking number ${parcel.trackingNumber} (${parcel.carrier})`,
      409,
    );
  }
  parcel.shipped = true;
  parcel.trackingNumber = tracking.trackingNumber;
  parcel.carrier = tracking.carrier;
  if (order.status === 'SHIPPING_PENDING' && [...order.parcels.values()].every((p) => p.shipped))
    order.status = 'SHIPPED';
  return { changed: true };
}
