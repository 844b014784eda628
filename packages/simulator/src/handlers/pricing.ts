// Handlers for the "pricing" operations (operation ids starting with "pricing.").
import type { Handlers } from './types.ts';

export const pricingHandlers: Handlers = {};
