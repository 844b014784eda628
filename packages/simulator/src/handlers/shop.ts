// Handlers for the "shop" operations (operation ids starting with "shop.").
import type { Handlers } from './types.ts';

export const shopHandlers: Handlers = {};
