// Handlers for the "webhooks" operations (operation ids starting with "webhooks.").
import type { Handlers } from './types.ts';

export const webhooksHandlers: Handlers = {};
