// Handlers for the "refunds" operations (operation ids starting with "refunds.").
import type { Handlers } from './types.ts';

export const refundsHandlers: Handlers = {};
