// Handlers for the "shipping" operations (operation ids starting with "shipping.").
import type { Handlers } from './types.ts';

export const shippingHandlers: Handlers = {};
