// The spec's stateless product rules (validation rules 1, 2, 6, 7 and the listing limits). Rules that
// need the service's state — SKU uniqueness (4), size changes (3), address ownership (5), brand and
// size catalogues — are checked by the service (and the simulator), not here.
import {
  PatchProductRequest,
  ProductCreateRequest,
  ProductPutRequest,
  Sku,
  MAX_HASHTAGS,
  DEPARTMENTS,
} from '../schemas/products.ts';
import { DEFAULT_MIN_PERCENT_OFF } from '../schemas/offers.ts';
import { brandKeyMatches, KNOWN_BRANDS, normaliseBrand } from '../schemas/brands.ts';
import { formatMoney, isAtLeastPercentBelow, maxAmountPercentBelow, parseMoney } from './money.ts';
import { violation, violationsFromZod, type RuleOptions, type RuleViolation } from './violations.ts';

/** Public reference: the minimum price is 1.00 in the listing's currency. */
export const MIN_PRICE_CENTS = 100;

const HASHTAG = /#([\p{L}\p{N}_-]+)/gu;
const EMAIL = /[\w.+-]+@[\w-]+\.[\w.-]+/;

/** "#Nike #vintage" → ["Nike", "vintage"] */
export function hashtagsOf(description: string): string[] {
  return [...description.matchAll(HASHTAG)].map((m) => m[1]!);
}

/** The hashtags found in a description (without the `#`); its length is the count the limit applies to. */
export function countHashtags(description: string): string[] {
  return hashtagsOf(description);
}

/**
 * True when a tag names the item's brand: equal once normalised, one within the other ("#nike" on
 * "Nike ACG"), or brand_name a forgiven typo of the tag's brand ("#adidas" on "Addidas", which the
 * service matches to Adidas). Lenient: the service, knowing the brand it matched, decides the rest.
 */
function isOwnBrand(tagKey: string, brandKey: string): boolean {
  return (
    brandKey !== '' &&
    (tagKey.includes(brandKey) || brandKey.includes(tagKey) || brandKeyMatches(brandKey, tagKey))
  );
}

/**
 * At most 5 hashtags, and no tag of another brand (code invalid_description). A tag counts as a brand only
 * when it names one of `knownBrands` (case, spaces and punctuation ignored: `#StoneIsland` = Stone
 * Island); generic tags (#vintage, #y2k) pass — the spec's "a tag of another brand".
 */
export function checkHashtags(
  description: string,
  brand: string,
  knownBrands: readonly string[] = KNOWN_BRANDS,
): RuleViolation[] {
  const tags = hashtagsOf(description);
  const out: RuleViolation[] = [];
  if (tags.length > MAX_HASHTAGS) {
    out.push(
      violation(
        'description',
        `at most ${MAX_HASHTAGS} hashtags`,
        'invalid_description',
        `description has ${tags.length} hashtags; at most ${MAX_HASHTAGS} are allowed`,
      ),
    );
  }
  const own = normaliseBrand(brand);
  const brands = new Map(knownBrands.map((b) => [normaliseBrand(b), b]));
  const foreign = tags.flatMap((tag) => {
    const key = normaliseBrand(tag);
    const named = brands.get(key);
    return named !== undefined && !isOwnBrand(key, own) ? [`#${tag} (${named})`] : [];
  });
  if (foreign.length > 0) {
    out.push(
      violation(
        'description',
        'no tag of another brand',
        'invalid_description',
        `hashtag(s) ${foreign.join(', ')} name another brand than the item's "${brand}"`,
      ),
    );
  }
  return out;
}

/** Rules 6 and 7 plus the minimum price, for any set of prices (create, PUT or PATCH merged onto current). */
export function checkPrices(
  prices: {
    price_amount?: string;
    discount_price?: string;
    auto_send_offer_price?: string;
    auto_negotiate_offer_price?: string;
  },
  opts: RuleOptions = {},
): RuleViolation[] {
  const out: RuleViolation[] = [];
  const percent = opts.minPercentOff ?? DEFAULT_MIN_PERCENT_OFF;
  const price = prices.price_amount === undefined ? null : parseMoney(prices.price_amount);
  if (price === null) return out;
  if (price < MIN_PRICE_CENTS) {
    out.push(
      violation(
        'price_amount',
        `at least ${formatMoney(MIN_PRICE_CENTS)}`,
        'validation',
        `price_amount must be at least ${formatMoney(MIN_PRICE_CENTS)}, got ${prices.price_amount}`,
      ),
    );
  }
  for (const field of ['discount_price', 'auto_send_offer_price'] as const) {
    const amount = prices[field] === undefined ? null : parseMoney(prices[field]);
    if (amount !== null && amount >= price) {
      out.push(
        violation(
          field,
          'below price_amount',
          'validation',
          `${field} (${prices[field]}) must be lower than price_amount (${prices.price_amount})`,
        ),
      );
    }
  }
  const negotiate =
    prices.auto_negotiate_offer_price === undefined ? null : parseMoney(prices.auto_negotiate_offer_price);
  if (negotiate !== null && !isAtLeastPercentBelow(negotiate, price, percent)) {
    out.push(
      violation(
        'auto_negotiate_offer_price',
        `at most price_amount minus ${percent}%`,
        'validation',
        `auto_negotiate_offer_price (${prices.auto_negotiate_offer_price}) must not exceed price_amount minus ${percent}% (${formatMoney(maxAmountPercentBelow(price, percent))})`,
      ),
    );
  }
  return out;
}

/**
 * POST create (`kind: 'create'`) or PUT full update (`kind: 'put'`): schema, rules 1, 2, 6, 7, the
 * picture, hashtag and SKU limits. `brand` overrides the brand used for the hashtag rule (the
 * service tags against the brand it matched; locally we only know `brand_name`).
 */
export function checkProductWrite(
  kind: 'create' | 'put',
  body: unknown,
  opts: RuleOptions & { brand?: string } = {},
): RuleViolation[] {
  const parsed = (kind === 'create' ? ProductCreateRequest : ProductPutRequest).safeParse(body);
  if (!parsed.success) return violationsFromZod(parsed.error);
  const b = parsed.data;
  const out: RuleViolation[] = [];
  if (b.quantity < 1) {
    out.push(
      violation(
        'quantity',
        'at least 1',
        'validation',
        `quantity must be at least 1 ${kind === 'create' ? 'when creating a listing' : 'on a full update (sell out with PATCH quantity 0 or mark-as-sold)'}, got ${b.quantity}`,
      ),
    );
  }
  if (!(DEPARTMENTS as readonly string[]).includes(b.department)) {
    out.push(
      violation(
        'department',
        `one of ${DEPARTMENTS.join(', ')}`,
        'invalid_department',
        `department "${b.department}" is not one of ${DEPARTMENTS.join(', ')}`,
      ),
    );
  }
  const platform = b.depop_shipping !== undefined;
  const national = b.national_shipping_cost !== undefined;
  if (platform === national) {
    out.push(
      violation(
        'national_shipping_cost',
        'platform shipping or a national shipping cost, exactly one',
        'validation',
        platform
          ? 'send either depop_shipping or national_shipping_cost, not both'
          : 'every listing needs platform shipping (depop_shipping) or a national_shipping_cost',
      ),
    );
  }
  if (normaliseBrand(b.brand_name) === '') {
    // SPEC GAP (brand): a brand_name with no letter or digit cannot be matched to any brand, not even
    // "unbranded" (which must be sent as such): 422 invalid_brand.
    out.push(
      violation(
        'brand_name',
        'a brand name (or "unbranded")',
        'invalid_brand',
        `brand_name "${b.brand_name}" names no brand; send the brand's name, or "unbranded" if there is none`,
      ),
    );
  }
  out.push(...checkHashtags(b.description, opts.brand ?? b.brand_name));
  if (EMAIL.test(b.description)) {
    out.push(
      violation(
        'description',
        'no e-mail addresses',
        'validation',
        'description must not contain e-mail addresses',
      ),
    );
  }
  out.push(...checkPrices(b, opts));
  return out;
}

/**
 * A SKU's own rules (at most 50 characters, not empty). PUT by SKU creates the listing when the SKU is
 * new (the upsert), so the path's SKU meets the create rules too.
 */
export function checkSku(sku: string): RuleViolation[] {
  const r = Sku.safeParse(sku);
  return r.success ? [] : violationsFromZod(r.error, 'sku');
}

/** POST /api/v1/products/: schema, rules 1, 2, 6, 7 and the listing limits. */
export function checkProductCreate(
  body: unknown,
  opts: RuleOptions & { brand?: string } = {},
): RuleViolation[] {
  return checkProductWrite('create', body, opts);
}

/** PUT by SKU, product ID or slug: as create, with `attributes` required and the SKU in the path. */
export function checkProductPut(body: unknown, opts: RuleOptions & { brand?: string } = {}): RuleViolation[] {
  return checkProductWrite('put', body, opts);
}

/** The prices a listing holds now, for rules that compare a PATCH against them. */
export interface CurrentPrices {
  price_amount: string;
  discount_price?: string;
  auto_send_offer_price?: string;
  auto_negotiate_offer_price?: string;
}

/**
 * PATCH: schema, quantity ≥ 0 (0 sells out), and the price rules against the prices as they would be
 * after the PATCH (the body's prices merged over `current`): lowering the price below a standing
 * discount or auto-offer price fails too.
 */
export function checkProductPatch(
  body: unknown,
  current?: CurrentPrices,
  opts: RuleOptions = {},
): RuleViolation[] {
  const parsed = PatchProductRequest.safeParse(body);
  if (!parsed.success) return violationsFromZod(parsed.error);
  const b = parsed.data;
  const out: RuleViolation[] = [];
  if (Object.values(b).every((v) => v === undefined)) {
    out.push(
      violation(
        '(body)',
        'at least one field',
        'validation',
        'PATCH needs at least one of price_amount, discount_price, auto_send_offer_price, auto_negotiate_offer_price, quantity, is_boosted',
      ),
    );
  }
  if (b.quantity !== undefined && b.quantity < 0) {
    out.push(
      violation(
        'quantity',
        'not negative',
        'validation',
        `quantity must not be negative (0 sells the listing out), got ${b.quantity}`,
      ),
    );
  }
  out.push(
    ...checkPrices(
      {
        price_amount: b.price_amount ?? current?.price_amount,
        discount_price: b.discount_price ?? current?.discount_price,
        auto_send_offer_price: b.auto_send_offer_price ?? current?.auto_send_offer_price,
        auto_negotiate_offer_price: b.auto_negotiate_offer_price ?? current?.auto_negotiate_offer_price,
      },
      opts,
    ),
  );
  return out;
}
