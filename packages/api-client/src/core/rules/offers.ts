// Rules 8 and 9: manual offers. Code `validation` (spec: "code validation unless noted"); the client still maps
// `validation-error` and any other code the offers system passes through to its 422 class by status.
import { SubmitOfferRequest, DEFAULT_MIN_PERCENT_OFF } from '../schemas/offers.ts';
import { formatMoney, isAtLeastPercentBelow, maxAmountPercentBelow, parseMoney } from './money.ts';
import { violation, violationsFromZod, type RuleOptions, type RuleViolation } from './violations.ts';

export interface OfferProductFacts {
  price_amount: string;
  price_currency: string;
  /** The product has a size at all (false: a sizeless type such as bags). Default: `sizeIds` is non-empty. */
  hasSizes?: boolean;
  /** The product has several sizes (variants): size_id required. Default: `sizeIds` has more than one id. */
  multiSize?: boolean;
  /** The product's size ids, when known: a multi-size offer's size_id must be one of them. */
  sizeIds?: number[];
}

/** Schema, ≤ 2 decimals, and — when the product is known — currency, percentage and size rules. */
export function checkOffer(
  body: unknown,
  product?: OfferProductFacts,
  opts: RuleOptions = {},
): RuleViolation[] {
  const parsed = SubmitOfferRequest.safeParse(body);
  if (!parsed.success) return violationsFromZod(parsed.error);
  const b = parsed.data;
  const out: RuleViolation[] = [];
  const valueCents = Math.round(b.offer_value * 100);
  if (Math.abs(valueCents - b.offer_value * 100) > 1e-6) {
    out.push(
      violation(
        'offer_value',
        'at most 2 decimals',
        'validation',
        `offer_value must have at most 2 decimals, got ${b.offer_value}`,
      ),
    );
  }
  if (!product) return out;
  if (b.offer_currency !== product.price_currency) {
    out.push(
      violation(
        'offer_currency',
        'the product’s currency',
        'validation',
        `offer_currency must be the product's currency ${product.price_currency}, got ${b.offer_currency}`,
      ),
    );
  }
  const percent = opts.minPercentOff ?? DEFAULT_MIN_PERCENT_OFF;
  const price = parseMoney(product.price_amount);
  if (price !== null && !isAtLeastPercentBelow(valueCents, price, percent)) {
    out.push(
      violation(
        'offer_value',
        `at least ${percent}% below the price`,
        'validation',
        `offer_value must be at least ${percent}% below the price ${product.price_amount} (at most ${formatMoney(maxAmountPercentBelow(price, percent))})`,
      ),
    );
  }
  out.push(...checkOfferSize(b.size_id, product));
  return out;
}

/** Rule 9: a size id is required for multi-size products and must be absent otherwise. */
function checkOfferSize(sizeId: number | undefined, product: OfferProductFacts): RuleViolation[] {
  const sizes = product.sizeIds ?? [];
  const multiSize = product.multiSize ?? sizes.length > 1;
  const hasSizes = product.hasSizes ?? (multiSize || sizes.length > 0);
  const listed = sizes.length > 0 ? ` (${sizes.join(', ')})` : '';
  if (multiSize) {
    if (sizeId === undefined) {
      return [
        violation(
          'size_id',
          'required for a multi-size product',
          'validation',
          `size_id is required: the product has several sizes${listed}`,
        ),
      ];
    }
    if (sizes.length > 0 && !sizes.includes(sizeId)) {
      return [
        violation(
          'size_id',
          'one of the product’s sizes',
          'validation',
          `size_id ${sizeId} is not one of the product's sizes${listed}`,
        ),
      ];
    }
    return [];
  }
  if (sizeId === undefined) return [];
  return [
    violation(
      'size_id',
      hasSizes ? 'absent for a single-size product' : 'absent for a product without sizes',
      'validation',
      hasSizes
        ? 'size_id must be absent: the product has a single size'
        : 'size_id must be absent: the product has no sizes',
    ),
  ];
}
