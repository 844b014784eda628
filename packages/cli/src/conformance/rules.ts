// Probes of the listing rules and their error codes: each sends the test listing with one rule broken
// (and a SKU of this run, so a service that wrongly accepts it still gets the listing cleaned up).
import { MAX_HASHTAGS, MAX_PICTURES, SKU_MAX_LENGTH } from '@selling-kit/api-client/core';
import { putBody } from './listing.ts';
import { expectReply, expectSuccess, type Probe } from './probe.ts';

const GENERIC_TAGS = ['vintage', 'y2k', 'retro', 'streetwear', 'summer', 'classic', 'casual'];

export const ruleProbes: Probe[] = [
  {
    id: 'rules.sku-too-long',
    spec: `sku: "String, at most ${SKU_MAX_LENGTH} characters."`,
    expected: '422 validation',
    choice: `a ${SKU_MAX_LENGTH + 1}-character SKU → 422 validation (the spec gives the limit, not the code)`,
    async run(ctx) {
      const r = await ctx.create('long', {}, { skuLength: SKU_MAX_LENGTH + 1 });
      return expectReply(r.reply, 422, 'validation');
    },
  },
  {
    id: 'rules.sku-too-long-put',
    spec: `sku: "String, at most ${SKU_MAX_LENGTH} characters."; PUT by SKU (public reference: an upsert)`,
    expected: '422 validation',
    choice: `PUT by SKU applies the ${SKU_MAX_LENGTH}-character limit too → 422 validation`,
    async run(ctx) {
      const sku = ctx.ledger.sku('longput', SKU_MAX_LENGTH + 1);
      return expectReply(await ctx.upsert(sku, putBody(ctx.template)), 422, 'validation');
    },
  },
  {
    id: 'rules.too-many-pictures',
    spec: `too_many_pictures (422): "More than ${MAX_PICTURES} pictures"`,
    expected: '422 too_many_pictures',
    choice: '',
    async run(ctx) {
      const pictures = Array.from({ length: MAX_PICTURES + 1 }, () => ctx.template.body.pictures[0]);
      return expectReply((await ctx.create('pics', { pictures })).reply, 422, 'too_many_pictures');
    },
  },
  {
    id: 'rules.too-many-hashtags',
    spec: `invalid_description (422): "More than ${MAX_HASHTAGS} hashtags, or a tag of another brand"`,
    expected: '422 invalid_description',
    choice: '',
    async run(ctx) {
      const tags = GENERIC_TAGS.slice(0, MAX_HASHTAGS + 1).map((t) => `#${t}`);
      const description = `${ctx.template.body.description} ${tags.join(' ')}`;
      return expectReply((await ctx.create('tags6', { description })).reply, 422, 'invalid_description');
    },
  },
  {
    id: 'rules.hashtag-generic-passes',
    spec: 'description: "at most 5 hashtags; only the brand the item belongs to may be tagged"; invalid_description: "a tag of another brand"',
    expected: '2xx',
    choice: 'generic hashtags (#vintage #y2k) pass; only a tag naming another brand fails',
    async run(ctx) {
      const description = `${ctx.template.body.description} #vintage #y2k #${ctx.template.brand.replace(/[^\p{L}\p{N}]/gu, '')}`;
      return expectSuccess((await ctx.create('tags', { description })).reply);
    },
  },
  {
    id: 'rules.hashtag-other-brand',
    spec: 'invalid_description (422): "… or a tag of another brand"',
    expected: '422 invalid_description',
    choice: '',
    async run(ctx) {
      const description = `${ctx.template.body.description} #${ctx.template.otherBrand.toLowerCase()}`;
      return expectReply((await ctx.create('tagx', { description })).reply, 422, 'invalid_description');
    },
  },
  {
    id: 'rules.discount-not-below-price',
    spec: 'Rule 6: "auto_send_offer_price and discount_price must be below the product price." (code validation)',
    expected: '422 validation',
    choice: '',
    async run(ctx) {
      const price = ctx.template.body.price_amount;
      return expectReply((await ctx.create('disc', { discount_price: price })).reply, 422, 'validation');
    },
  },
  {
    id: 'rules.no-shipping',
    spec: 'Rule 2: "Every listing needs platform shipping or a national shipping cost." (code validation)',
    expected: '422 validation',
    choice: '',
    async run(ctx) {
      const changes = { national_shipping_cost: undefined, depop_shipping: undefined };
      return expectReply((await ctx.create('noship', changes)).reply, 422, 'validation');
    },
  },
  {
    id: 'rules.invalid-department',
    spec: 'invalid_department (422): "Category could not be resolved, usually missing or invalid department"',
    expected: '422 invalid_department',
    choice: '',
    async run(ctx) {
      const r = await ctx.create('dept', { department: 'no-such-department' });
      return expectReply(r.reply, 422, 'invalid_department');
    },
  },
  {
    id: 'rules.missing-required-field',
    spec: '422: "Well-formed but fails validation"; 400: "Body or parameters could not be parsed"',
    expected: '422 validation',
    choice: 'a missing required field (price_amount) is 422 validation, not 400',
    async run(ctx) {
      return expectReply((await ctx.create('noprice', { price_amount: undefined })).reply, 422, 'validation');
    },
  },
  {
    id: 'rules.unparseable-json',
    spec: '400: "Body or parameters could not be parsed"',
    expected: '400',
    choice: '',
    async run(ctx) {
      // Cut short after the SKU: nothing the service could create a listing from.
      const sku = ctx.ledger.sku('json');
      const r = await ctx.raw({
        method: 'POST',
        path: '/api/v1/products/',
        body: `{"sku": "${sku}", "price_amount": `,
      });
      return expectReply(r, 400);
    },
  },
];
