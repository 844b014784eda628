// Handlers for the "orders" operations (operation ids starting with "orders.").
import type { Handlers } from './types.ts';

export const ordersHandlers: Handlers = {};
