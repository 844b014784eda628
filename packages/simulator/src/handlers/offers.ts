// Handlers for the "offers" operations (operation ids starting with "offers.").
import type { Handlers } from './types.ts';

export const offersHandlers: Handlers = {};
