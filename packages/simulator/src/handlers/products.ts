// Handlers for the "products" operations (operation ids starting with "products.").
import type { Handlers } from './types.ts';

export const productsHandlers: Handlers = {};
