// Rules 8 and 9: manual offers (code validation-error, as the public reference names it for offers).
import { SubmitOfferRequest, DEFAULT_MIN_PERCENT_OFF } from '../schemas/offers.ts';
import { formatMoney, isAtLeastPercentBelow, maxAmountPercentBelow, parseMoney } from './money.ts';
import { violation, violationsFromZod, type RuleOptions, type RuleViolation } from './violations.ts';

export interface OfferProductFacts {
  price_amount: string;
  price_currency: string;
  /** The product's size ids: several = multi-size (size required), one or none = size forbidden. */
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
        'validation-error',
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
        'validation-error',
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
        'validation-error',
        `offer_value must be at least ${percent}% below the price ${product.price_amount} (at most ${formatMoney(maxAmountPercentBelow(price, percent))})`,
      ),
    );
  }
  const sizes = product.sizeIds ?? [];
  if (sizes.length > 1) {
    if (b.size_id === undefined) {
      out.push(
        violation(
          'size_id',
          'required for a multi-size product',
          'validation-error',
          `size_id is required: the product has several sizes (${sizes.join(', ')})`,
        ),
      );
    } else if (!sizes.includes(b.size_id)) {
      out.push(
        violation(
          'size_id',
          'one of the product’s sizes',
          'validation-error',
          `size_id ${b.size_id} is not one of the product's sizes (${sizes.join(', ')})`,
        ),
      );
    }
  } else if (b.size_id !== undefined) {
    out.push(
      violation(
        'size_id',
        'absent for a single-size product',
        'validation-error',
        'size_id must be absent: the product has a single size or none',
      ),
    );
  }
  return out;
}
